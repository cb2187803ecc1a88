// An NPU shadow slot (an embedding or transcription slot on the NPU) runs no engine of its
// own: the engine of the NPU llm slot, its anchor, serves it (config/npu.ts). The supervisor
// routes, shows and starts a shadow through its anchor; a shadow with no anchor able to serve
// it is a configuration error that says what to change.
import type { SlotEntry } from '../config/load.js';
import { isNpuShadow, npuAnchorOf, shadowCapability } from '../config/npu.js';
import { SlotError } from '../protocol/errors.js';

/** For an NPU shadow, the anchor slot whose engine serves it, if any; undefined for other slots. */
export function npuAnchorFor(entry: SlotEntry, slots: readonly SlotEntry[]): SlotEntry | undefined {
  if (!isNpuShadow(entry.config.slot)) return undefined;
  return npuAnchorOf(slots.map((e) => ({ ...e.config.slot, entry: e })))?.entry;
}

/** The anchor of a shadow, able to serve it; slot.config_error saying what to change otherwise. */
export function requireNpuAnchor(entry: SlotEntry, slots: readonly SlotEntry[]): SlotEntry {
  const { slot } = entry.config;
  const anchor = npuAnchorFor(entry, slots);
  if (!anchor) {
    throw new SlotError('slot.config_error', `slot ${slot.name} is an NPU ${slot.type} slot, served by the engine of the NPU llm slot, and no enabled slot has device = "npu" and type = "llm"`, { slot: slot.name });
  }
  const capability = shadowCapability(slot)!;
  if (!anchor.config.npu[capability]) {
    throw new SlotError('slot.config_error', `slot ${slot.name} is served by the NPU engine of slot ${anchor.name}, which runs without ${capability === 'embed' ? 'embeddings' : 'speech recognition'}: set [npu].${capability} = true in ${anchor.file}`, { slot: slot.name, anchor: anchor.name });
  }
  return anchor;
}
