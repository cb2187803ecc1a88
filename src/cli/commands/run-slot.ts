// Which slot `svc run <model>` chats with: one that already serves the model as its default,
// else a new one named after the model. The naming and picking rules are pure (tested
// beside this file); prepareSlot does the requests.
import type { ModelPayload } from '../../protocol/models.js';
import { DEFAULT_CTX_SIZE, MAX_CTX_SIZE, MIN_CTX_SIZE } from '../../protocol/slot-limits.js';
import type { SlotViewPayload } from '../../protocol/slots.js';
import { SLOT_NAME_PATTERN } from '../../protocol/vocabulary.js';
import type { ApiClient } from '../client.js';
import { warn } from '../output.js';
import { withStartFailure } from './slot-start-failure.js';

const MAX_SLOT_NAME = 32;

/** A valid slot name made from a model id ("Qwen3-0.6B.Q8_0" → "qwen3-0-6b-q8_0"), unique among `taken`. */
export function slotNameFor(modelId: string, taken: ReadonlySet<string>): string {
  const trim = (name: string) => name.replace(/^[-_]+/, '').replace(/[-_]+$/, '');
  const base = trim(trim(modelId.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/-{2,}/g, '-')).slice(0, MAX_SLOT_NAME)) || 'model';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const name = `${trim(base.slice(0, MAX_SLOT_NAME - suffix.length)) || 'model'}${suffix}`;
    if (!taken.has(name) && SLOT_NAME_PATTERN.test(name)) return name;
  }
}

/**
 * The slot to reuse: an enabled llm slot whose [model].default is the model (`usedBy`),
 * a running one first (no load to wait for), else the first by name.
 */
export function pickSlot(usedBy: readonly string[], slots: readonly SlotViewPayload[]): SlotViewPayload | undefined {
  const candidates = slots.filter((s) => usedBy.includes(s.name) && s.type === 'llm' && s.enabled).sort((a, b) => a.name.localeCompare(b.name));
  return candidates.find((s) => s.state === 'ready') ?? candidates[0];
}

/** The context of a new slot: the model's own default, else the usual default capped at the model's native context. */
export function contextFor(model: Pick<ModelPayload, 'context_length' | 'defaults'>): number {
  const wanted = model.defaults.context_size ?? Math.min(DEFAULT_CTX_SIZE, model.context_length ?? DEFAULT_CTX_SIZE);
  return Math.max(MIN_CTX_SIZE, Math.min(MAX_CTX_SIZE, wanted));
}

/** The slot for the model, created when none serves it; then loaded, with one status line on stderr. */
export async function prepareSlot(client: ApiClient, model: ModelPayload): Promise<SlotViewPayload> {
  const { slots } = await client.listSlots();
  const slot = pickSlot(model.used_by, slots);
  if (slot) return loadSlotSaying(client, slot, 'slot', model.id);
  const name = slotNameFor(model.id, new Set(slots.map((s) => s.name)));
  // No provider: the server picks llama-server when it finds one, else the built-in engine.
  const created = await client.createSlot({ name, type: 'llm', model: model.id, ctx_size: contextFor(model) });
  for (const warning of created.warnings) warn(warning);
  return loadSlotSaying(client, created, 'created slot', model.id);
}

/**
 * Load `slot` with `modelId` (its own model when not given) unless it already runs it, with
 * one status line on stderr: `<how> <name> (<provider>, <device>): model <id>: ready on port …`.
 */
export async function loadSlotSaying(client: ApiClient, slot: SlotViewPayload, how: string, modelId?: string): Promise<SlotViewPayload> {
  const head = `${how} ${slot.name} (${slot.provider}, ${slot.device}): model ${modelId ?? slot.model}`;
  const ready = (s: SlotViewPayload) => `ready on port ${s.port}${s.pid === null ? '' : ` (pid ${s.pid})`}`;
  // Already running the model: no load, which also lets a token without write access chat.
  if (slot.state === 'ready' && (modelId === undefined || slot.model === modelId)) {
    process.stderr.write(`${head}: ${ready(slot)}\n`);
    return slot;
  }
  // On a terminal the line is started before the load and finished after it; elsewhere it is written once.
  const tty = process.stderr.isTTY === true;
  if (tty) process.stderr.write(`${head}: loading...`);
  const loaded = await withStartFailure(slot.name, client.loadSlot(slot.name, modelId)).catch((error: unknown) => {
    if (tty) process.stderr.write('\n');
    throw error;
  });
  process.stderr.write(tty ? ` ${ready(loaded)}\n` : `${head}: ${ready(loaded)}\n`);
  return loaded;
}
