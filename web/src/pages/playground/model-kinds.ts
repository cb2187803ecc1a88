// Which /v1/models entries each Playground tool offers. The list itself names a kind only
// for svc's own entries (a slot alias is an llm slot; svc/embed, svc/tts, … name theirs);
// a raw local id names its `slot`, whose type the slot list (/api/slots) gives; a
// remote endpoint does not advertise what its models do, so its ids are offered to every
// tool, apart, as "remote".
import type { ModelEntry, ModelList } from '../../../../src/protocol/v1-wire.js';

export const TOOLS = ['chat', 'embeddings', 'rerank', 'speech', 'transcription', 'image'] as const;
export type Tool = (typeof TOOLS)[number];

/** The slot type that serves each tool (src/protocol/vocabulary.ts SLOT_TYPES). */
export const SLOT_TYPE_OF_TOOL: Readonly<Record<Tool, string>> = {
  chat: 'llm',
  embeddings: 'embedding',
  rerank: 'reranking',
  speech: 'tts',
  transcription: 'transcription',
  image: 'image',
};

const VIRTUAL_TOOL: Readonly<Record<string, Tool>> = {
  'svc/primary': 'chat',
  'svc/utility': 'chat',
  'svc/npu': 'chat',
  'svc/embed': 'embeddings',
  'svc/rerank': 'rerank',
  'svc/stt': 'transcription',
  'svc/tts': 'speech',
  'svc/image': 'image',
};

export interface ModelOption {
  id: string;
  /** What the picker shows. */
  label: string;
  /** The local slot that serves it, when one does (its state says whether it is loading). */
  slot: string | null;
  /** A remote endpoint's id: what it does is not advertised. */
  remote: boolean;
}

export type ModelsByTool = Record<Tool, ModelOption[]>;

/** The slot types by slot name, as /api/slots lists them. */
export type SlotTypes = ReadonlyMap<string, string>;

function toolOfSlotType(type: string | undefined): Tool | null {
  return TOOLS.find((tool) => SLOT_TYPE_OF_TOOL[tool] === type) ?? null;
}

/** The tool one entry serves: null for a remote id (not advertised) or a slot type no tool serves. */
function classify(entry: ModelEntry, slotTypes: SlotTypes): { tool: Tool | null; option: ModelOption } {
  if ('_hal0' in entry) {
    const slot = entry._hal0.resolves_to;
    const tool = VIRTUAL_TOOL[entry.id] ?? toolOfSlotType(slotTypes.get(slot)) ?? 'chat';
    return { tool, option: { id: entry.id, label: `${entry.id} → ${slot}`, slot, remote: false } };
  }
  if ('slot' in entry) {
    const slotType = slotTypes.get(entry.slot);
    if (slotType !== undefined) return { tool: toolOfSlotType(slotType), option: { id: entry.id, label: `${entry.id} (${entry.slot})`, slot: entry.slot, remote: false } };
  } else if ('name' in entry) return { tool: 'chat', option: { id: entry.id, label: entry.name, slot: entry.id, remote: false } };
  return { tool: null, option: { id: entry.id, label: `${entry.id} (${entry.owned_by})`, slot: null, remote: true } };
}

/**
 * The models each tool offers, in the list's order: svc's and local slots' where their type
 * fits, then every remote id (marked remote) for every tool.
 */
export function modelsByTool(list: ModelList | undefined, slotTypes: SlotTypes): ModelsByTool {
  const out = Object.fromEntries(TOOLS.map((tool) => [tool, [] as ModelOption[]])) as ModelsByTool;
  const remote: ModelOption[] = [];
  for (const entry of list?.data ?? []) {
    const { tool, option } = classify(entry, slotTypes);
    if (option.remote) remote.push(option);
    else if (tool !== null) out[tool].push(option);
  }
  for (const tool of TOOLS) out[tool].push(...remote);
  return out;
}

/** The model to keep selected: the current one while it is still offered, else the first. */
export function keepSelection(current: string, options: readonly ModelOption[]): string {
  if (options.some((o) => o.id === current)) return current;
  return options[0]?.id ?? '';
}
