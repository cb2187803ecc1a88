// What the resolver and /v1/models know about each slot: its config (type, role, device)
// joined with the supervisor's view of it (state, model), plus its context window.
import type { ResolvedConfig } from '../config/load.js';
import type { SlotType } from '../config/schema/common.js';
import type { SlotFile } from '../config/schema/slot.js';
import { requestWindow } from '../engines/request-window.js';
import type { SlotViewPayload } from '../protocol/slots.js';
import type { SlotCandidate } from './types.js';
import { own } from '../lib/own.js';

/**
 * Refusals that say nothing about the slot itself: the host was full (max_slots, memory),
 * the GPU busy, a crash loop waiting to be retried. Any other last_error of a stopped slot
 * (no engine binary, no model file, an engine that exited while loading) stays until the
 * slot starts again.
 */
const PASSING_REFUSALS: ReadonlySet<string> = new Set(['slot.capacity', 'slot.memory_pressure', 'slot.not_ready', 'slot.disabled', 'gpu.image_mode', 'gpu.inference_mode']);

/** A stopped slot whose last start failed for a reason of its own (docs/routing.md, Preference). */
export function lastStartFailed(view: Pick<SlotViewPayload, 'state' | 'last_error'>): boolean {
  return view.state === 'stopped' && view.last_error !== null && !PASSING_REFUSALS.has(view.last_error.code);
}

/**
 * One candidate per view, in the views' order (views whose slot file is gone, e.g. during a
 * reload, are left out). `modelId` is the view's model: the running model, or for a stopped
 * slot the model its next start loads. A slot is `failed` when lastStartFailed says so.
 */
export function slotCandidates(config: ResolvedConfig, views: ReadonlyArray<Pick<SlotViewPayload, 'name' | 'state' | 'type' | 'device' | 'enabled' | 'model' | 'last_error'>>): SlotCandidate[] {
  const entries = new Map(config.slots.map((e) => [e.name, e]));
  const selected = capabilitiesBySlot(config);
  const out: SlotCandidate[] = [];
  for (const view of views) {
    const entry = entries.get(view.name);
    if (!entry) continue;
    out.push({
      name: view.name,
      type: view.type as SlotType,
      role: entry.config.slot.role,
      device: view.device,
      enabled: view.enabled,
      state: view.state,
      modelId: view.model,
      contextLength: contextLength(config, entry.config, view.model),
      npu: { embed: entry.config.npu.embed, asr: entry.config.npu.asr },
      ...(selected.has(view.name) && { capabilities: selected.get(view.name) }),
      ...(lastStartFailed(view) && { failed: true }),
    });
  }
  return out;
}

/** capabilities.toml read at dispatch: the enabled selections, by the slot they name. */
function capabilitiesBySlot(config: ResolvedConfig): Map<string, string[]> {
  const bySlot = new Map<string, string[]>();
  for (const [name, selection] of Object.entries(config.capabilities.capabilities)) {
    if (!selection?.enabled) continue;
    bySlot.set(selection.slot, [...(bySlot.get(selection.slot) ?? []), name]);
  }
  return bySlot;
}

/** The context window one request can count on (an engines question: engines/request-window.ts). */
function contextLength(config: ResolvedConfig, slot: SlotFile, modelId: string): number | null {
  return requestWindow(slot, own(config.registry.models, modelId)?.metadata.context_length ?? null);
}
