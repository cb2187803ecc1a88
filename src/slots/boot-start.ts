// Starting the enabled slots when the gateway starts ([slot].enabled: "Start this
// slot at startup"). It runs after the API listens, in the background, one slot at a time in
// name order, so the memory each start takes is measured before the next is decided. The
// policies decide (eviction.ts bootStartDecision, gpu-policy.ts imageYieldsAtBoot); a slot
// that is refused, or whose start fails, stays down with the reason in its last_error,
// like any start. Slots already running (re-adopted, or started by an early request) count
// as started; NPU shadow slots are served by their anchor and never start on their own.
import type { ResolvedConfig, SlotEntry } from '../config/load.js';
import { isNpuShadow } from '../config/npu.js';
import { ImageError, SlotError, type SvcError } from '../protocol/errors.js';
import { bootStartDecision, type SlotUsage } from './eviction.js';
import { imageYieldsAtBoot, type GpuSlotFacts } from './gpu-policy.js';
import { isLive, type SlotState } from './state-machine.js';

/** What boot starts need from the supervisor. */
export interface BootTarget {
  config(): ResolvedConfig;
  /** The runtime state of a slot's own engine (not a shadow's anchor). */
  stateOf(name: string): SlotState;
  /** The live slots, for max_slots. */
  running(): SlotUsage[];
  memAvailableMb(): Promise<number>;
  /** Start the slot if it is still stopped when its queue comes to it. */
  start(name: string): Promise<unknown>;
  /** Record why a slot was not started (its last_error). */
  refuse(name: string, error: SvcError): void;
  /** True once the gateway is shutting down: start nothing more. */
  closing(): boolean;
}

export async function startEnabledSlots(target: BootTarget): Promise<void> {
  // [slots].start_at_boot = false: on demand only (a host with more slots than it can run at once).
  if (!target.config().svc.slots.start_at_boot) return;
  const names = target.config().slots.map((e) => e.name).sort();
  for (const name of names) {
    if (target.closing()) return;
    const entry = target.config().slots.find((e) => e.name === name);
    if (!entry || !entry.config.slot.enabled || isNpuShadow(entry.config.slot) || target.stateOf(name) !== 'stopped') continue;
    const refusal = await refusalOf(target, entry);
    if (target.stateOf(name) !== 'stopped') continue; // a request started it meanwhile
    if (refusal) target.refuse(name, refusal);
    // A failed start is the slot's own error, recorded in its view; the next slot goes on.
    else await target.start(name).catch(() => undefined);
  }
}

async function refusalOf(target: BootTarget, entry: SlotEntry): Promise<SvcError | undefined> {
  const { slots } = target.config().svc;
  const memory = await target.memAvailableMb();
  const decision = bootStartDecision({ running: target.running(), starting: entry.name, maxSlots: slots.max_slots, memAvailableMb: memory, pressureFloorMb: slots.evict_pressure_mb });
  const later = 'it starts on its first request';
  if (!decision.start && decision.reason === 'capacity') {
    return new SlotError('slot.capacity', `not started with the gateway: [slots].max_slots (${slots.max_slots}) slots are running (${decision.running.join(', ')}), and starts at boot never stop one; ${later}`, { slot: entry.name, running: decision.running });
  }
  if (!decision.start) {
    return new SlotError('slot.memory_pressure', `not started with the gateway: the host has ${memory} MiB available, under [slots].evict_pressure_mb (${slots.evict_pressure_mb} MiB); ${later}`, { slot: entry.name, available_mb: memory, floor_mb: slots.evict_pressure_mb });
  }
  const yieldsTo = imageYieldsAtBoot(factsOf(target, entry), target.config().slots.map((e) => factsOf(target, e)));
  if (yieldsTo.length > 0) {
    return new ImageError('gpu.inference_mode', `not started with the gateway: its GPU is in inference mode for ${yieldsTo.join(', ')}; ${later} (image mode stops them)`, { slot: entry.name, busy_slots: yieldsTo });
  }
  return undefined;
}

function factsOf(target: BootTarget, entry: SlotEntry): GpuSlotFacts {
  const { slot } = entry.config;
  const live = isLive(target.stateOf(entry.name));
  return { name: entry.name, type: slot.type, device: slot.device, gpuIndex: slot.gpu_index, enabled: slot.enabled && !isNpuShadow(slot), live, inFlight: 0 };
}
