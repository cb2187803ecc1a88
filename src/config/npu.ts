// The NPU's slots (docs/routing.md, "NPU slots"): the NPU runs one engine process at a time. The
// enabled `device = "npu"`, `type = "llm"` slot is its *anchor*: the process that holds the
// NPU. NPU embedding and transcription slots are *shadows*: they never run a process of
// their own; the anchor's engine serves them when its [npu].embed / [npu].asr is on.
// Pure rules over slot facts, shared by the supervisor, the dispatcher and the slot API.

/** What these rules read of a slot. */
export interface NpuSlotFacts {
  name: string;
  device: string;
  type: string;
  enabled: boolean;
}

export const isNpuAnchor = (s: NpuSlotFacts): boolean => s.device === 'npu' && s.type === 'llm';

/** The capability of the anchor's engine a shadow of this type needs, or null for other slots. */
export function shadowCapability(s: Pick<NpuSlotFacts, 'device' | 'type'>): 'embed' | 'asr' | null {
  if (s.device !== 'npu') return null;
  if (s.type === 'embedding') return 'embed';
  if (s.type === 'transcription') return 'asr';
  return null;
}

export const isNpuShadow = (s: Pick<NpuSlotFacts, 'device' | 'type'>): boolean => shadowCapability(s) !== null;

/**
 * The anchor: the enabled NPU llm slot. Exclusivity keeps it to one; should hand-edited
 * files hold several, the first by name is the anchor, so the choice never flips.
 */
export function npuAnchorOf<T extends NpuSlotFacts>(slots: readonly T[]): T | undefined {
  return [...slots].filter((s) => s.enabled && isNpuAnchor(s)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
}

/**
 * NPU exclusivity: at most one enabled NPU llm slot. The names of the other enabled NPU
 * llm slots when `name` is one too (a conflict), else [].
 */
export function npuExclusivityConflicts(slots: readonly NpuSlotFacts[], name: string): string[] {
  const self = slots.find((s) => s.name === name);
  if (!self || !self.enabled || !isNpuAnchor(self)) return [];
  return slots.filter((s) => s.name !== name && s.enabled && isNpuAnchor(s)).map((s) => s.name).sort();
}
