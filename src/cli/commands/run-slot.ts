// Which slot `svc run <model>` chats with: one that already serves the model as its default,
// else a new one named after the model. The naming and picking rules are pure (tested
// beside this file); prepareSlot does the requests.
import type { ModelPayload } from '../../protocol/models.js';
import { DEFAULT_CTX_SIZE, MAX_CTX_SIZE, MIN_CTX_SIZE } from '../../protocol/slot-limits.js';
import type { SlotViewPayload } from '../../protocol/slots.js';
import { SLOT_NAME_PATTERN } from '../../protocol/vocabulary.js';
import { ApiResponseError, type ApiClient } from '../client.js';
import { warn } from '../output.js';
import { ensureModel } from './run-model.js';

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

/** GET /api/models/<ref>; a model the registry lacks goes to ensureModel. */
export async function resolveModel(client: ApiClient, ref: string): Promise<ModelPayload> {
  try {
    return await client.getModel(ref);
  } catch (error) {
    // A name shared by several models is also model.not_found, with candidates: not a pull.
    if (!(error instanceof ApiResponseError) || error.code !== 'model.not_found' || error.envelope.error.details.candidates !== undefined) throw error;
  }
  const id = await ensureModel(client, ref, (line) => process.stderr.write(`${line}\n`));
  return client.getModel(id);
}

/** The slot for the model, created when none serves it; then loaded, with one status line on stderr. */
export async function prepareSlot(client: ApiClient, model: ModelPayload): Promise<SlotViewPayload> {
  const { slots } = await client.listSlots();
  let slot = pickSlot(model.used_by, slots);
  let how = 'slot';
  if (!slot) {
    const name = slotNameFor(model.id, new Set(slots.map((s) => s.name)));
    // No provider: the server picks llama-server when it finds one, else the built-in engine.
    const created = await client.createSlot({ name, type: 'llm', model: model.id, ctx_size: contextFor(model) });
    for (const warning of created.warnings) warn(warning);
    slot = created;
    how = 'created slot';
  }
  const head = `${how} ${slot.name} (${slot.provider}, ${slot.device}): model ${model.id}`;
  const ready = (s: SlotViewPayload) => `ready on port ${s.port}${s.pid === null ? '' : ` (pid ${s.pid})`}`;
  // Already running the model: no load, which also lets a token without write access chat.
  if (slot.state === 'ready' && slot.model === model.id) {
    process.stderr.write(`${head}: ${ready(slot)}\n`);
    return slot;
  }
  // On a terminal the line is started before the load and finished after it; elsewhere it is written once.
  const tty = process.stderr.isTTY === true;
  if (tty) process.stderr.write(`${head}: loading...`);
  const loaded = await client.loadSlot(slot.name, model.id).catch((error: unknown) => {
    if (tty) process.stderr.write('\n');
    throw error;
  });
  process.stderr.write(tty ? ` ${ready(loaded)}\n` : `${head}: ${ready(loaded)}\n`);
  return loaded;
}
