// Pure helpers for showing a stack apply's plan: values in a field diff, what each runtime
// move means, and whether a live slot now matches what the stack asked of it.
import type { SlotViewPayload } from '../../../../src/protocol/slots.js';
import type { StackSlotPlan } from '../../../../src/protocol/stacks.js';

/** A field value as the diff shows it; null is "unset" (the key is absent: the slot takes its default). */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'unset';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

export const RUNTIME_WORDS: Record<StackSlotPlan['runtime'] | 'unload', string> = {
  load: 'start it',
  swap: 'swap its model',
  restart: 'restart it',
  none: 'leave it running',
  unload: 'unload it (its file is kept)',
};

/** One line per slot for the confirm dialog: what happens to it. */
export function planLines(plan: { changes: StackSlotPlan[]; unloads: string[] }): string[] {
  const lines = plan.changes
    .filter((change) => change.changed || change.runtime !== 'none')
    .map((change) => `${change.slot}: ${change.action === 'create' ? 'create' : change.action === 'edit' ? 'edit' : 'keep'} the slot file, ${RUNTIME_WORDS[change.runtime]}`);
  return [...lines, ...plan.unloads.map((slot) => `${slot}: ${RUNTIME_WORDS.unload}`)];
}

export interface SlotMatch {
  slot: string;
  wanted: string;
  live: string | null;
  state: string | null;
  matches: boolean;
}

/** Whether each slot the stack names runs (or is set to run) the model it asked for. */
export function slotMatches(changes: StackSlotPlan[], slots: readonly Pick<SlotViewPayload, 'name' | 'model' | 'state' | 'enabled'>[]): SlotMatch[] {
  return changes.map((change) => {
    const live = slots.find((s) => s.name === change.slot);
    return {
      slot: change.slot,
      wanted: change.after_model,
      live: live?.model ?? null,
      state: live?.state ?? null,
      matches: live !== undefined && live.enabled && live.model === change.after_model && live.state === 'ready',
    };
  });
}
