// Eviction policy as a pure function: given the running slots, the clock and the host's
// memory, say which slots to stop and why. The supervisor applies the result; it never
// decides on its own. Rules ([slots] of svc.toml; docs/configuration.md):
//   - idle: a ready slot with no request in flight, idle for its idle timeout (0 = never);
//   - capacity: starting one more slot than max_slots allows evicts the least-recently-used
//     idle slot, or refuses when none is idle;
//   - pressure: while MemAvailable is under evict_pressure_mb, stop idle slots, LRU first,
//     until the memory they hold would lift it over the floor (one at a time when unknown);
//   - never: a slot with requests in flight, or one that is not ready (it is busy changing).
// Ties in last use break by name, so the result is deterministic.

export interface SlotUsage {
  name: string;
  /** Only ready slots are candidates; the others are counted but never chosen. */
  state: 'starting' | 'warming' | 'ready' | 'stopping';
  inFlight: number;
  /** Epoch ms of the end of the last request (or of the start, if none yet). */
  lastUsedAt: number;
  /** Effective idle timeout in seconds; 0 disables idle eviction for this slot. */
  idleTimeoutS: number;
  /** Resident memory of the engine in MiB, when known. */
  memoryMb?: number;
}

export interface EvictionInput {
  now: number;
  running: readonly SlotUsage[];
  /** A slot about to start, which needs a place under max_slots. */
  starting?: string;
  maxSlots: number;
  memAvailableMb: number;
  pressureFloorMb: number;
}

export type EvictionReason = 'idle' | 'capacity' | 'pressure';

export interface EvictionPlan {
  stop: Array<{ name: string; reason: EvictionReason }>;
  /** Set when `starting` cannot get a place: every running slot is busy. */
  refuse?: { reason: 'capacity'; running: string[] };
}

const byLeastRecentlyUsed = (a: SlotUsage, b: SlotUsage) => a.lastUsedAt - b.lastUsedAt || a.name.localeCompare(b.name);
const evictable = (slot: SlotUsage) => slot.state === 'ready' && slot.inFlight === 0;

export function planEviction(input: EvictionInput): EvictionPlan {
  const stop: EvictionPlan['stop'] = [];
  const chosen = new Set<string>();
  const choose = (slot: SlotUsage, reason: EvictionReason) => {
    chosen.add(slot.name);
    stop.push({ name: slot.name, reason });
  };
  const others = input.running.filter((s) => s.name !== input.starting);
  const candidates = () => others.filter((s) => evictable(s) && !chosen.has(s.name)).sort(byLeastRecentlyUsed);

  for (const slot of candidates()) {
    if (slot.idleTimeoutS > 0 && input.now - slot.lastUsedAt >= slot.idleTimeoutS * 1000) choose(slot, 'idle');
  }

  if (input.starting !== undefined && input.maxSlots > 0) {
    const excess = others.length - chosen.size - (input.maxSlots - 1);
    const lru = candidates();
    if (excess > lru.length) return { stop, refuse: { reason: 'capacity', running: others.map((s) => s.name) } };
    for (const slot of lru.slice(0, Math.max(0, excess))) choose(slot, 'capacity');
  }

  if (input.pressureFloorMb > 0 && input.memAvailableMb < input.pressureFloorMb) {
    const alreadyChosen = others.filter((s) => chosen.has(s.name));
    let available = input.memAvailableMb + sumMemory(alreadyChosen);
    // A slot already chosen frees an unknown amount: measure again next tick before adding more.
    const unknownGain = alreadyChosen.some((s) => s.memoryMb === undefined);
    for (const slot of unknownGain ? [] : candidates()) {
      if (available >= input.pressureFloorMb) break;
      choose(slot, 'pressure');
      if (slot.memoryMb === undefined) break; // unknown gain: stop one, measure again next tick
      available += slot.memoryMb;
    }
  }
  return { stop };
}

function sumMemory(slots: readonly SlotUsage[]): number {
  return slots.reduce((total, slot) => total + (slot.memoryMb ?? 0), 0);
}

export type BootStartDecision = { start: true } | { start: false; reason: 'capacity' | 'pressure'; running: string[] };

/**
 * At gateway start, slots with `enabled = true` start one at a time; may `starting` start
 * now? Boot starts never evict: a slot that would need a place under max_slots, or that
 * would start while MemAvailable is under the pressure floor (where the next tick would stop
 * it again, being idle), stays stopped until its first request.
 */
export function bootStartDecision(input: Omit<EvictionInput, 'now'> & { starting: string }): BootStartDecision {
  const running = input.running.filter((s) => s.name !== input.starting).map((s) => s.name);
  if (input.pressureFloorMb > 0 && input.memAvailableMb < input.pressureFloorMb) return { start: false, reason: 'pressure', running };
  if (input.maxSlots > 0 && running.length >= input.maxSlots) return { start: false, reason: 'capacity', running };
  return { start: true };
}
