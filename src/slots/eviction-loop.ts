// The supervisor's monitor tick and the eviction it applies; the policy is the pure
// planEviction (eviction.ts), this only applies it. Each tick first lets every runtime look at
// its engine (its new log lines, an adopted engine's death, its memory), then stops the slots
// idle past their timeout, and idle ones while memory is under the pressure floor. Before a
// start, makeRoom stops the least recently used idle slot when max_slots is reached, or
// refuses with slot.capacity. A slot chosen is stopped in its own queue, and only if it is
// still ready and idle there: a request may have arrived since the plan was made.
import { SlotError } from '../protocol/errors.js';
import { planEviction, type EvictionReason, type SlotUsage } from './eviction.js';
import { isLive, type SlotState } from './state-machine.js';

/** What the loop reads of a slot's runtime, and does to it (SlotRuntime). */
export interface EvictableRuntime {
  readonly state: SlotState;
  readonly inFlight: number;
  readonly lastUsedAt: number;
  readonly memoryMb: number | null;
  serially<T>(task: () => Promise<T>): Promise<T>;
  stop(reason: string): Promise<void>;
  observe(): Promise<void>;
}

/** A configured slot with its effective idle timeout (seconds; 0 never evicts it for idleness). */
export interface ConfiguredSlot {
  name: string;
  idleTimeoutS: number;
}

export interface EvictionLoopOptions {
  /** The configured slots, in configuration order. */
  slots: () => readonly ConfiguredSlot[];
  /** [slots].max_slots (0: no limit) and evict_pressure_mb (0: never for memory). */
  limits: () => { maxSlots: number; pressureFloorMb: number };
  /** The runtimes by slot name: the supervisor's own map, read at each use. */
  runtimes: ReadonlyMap<string, EvictableRuntime>;
  memAvailableMb: () => number | Promise<number>;
  onEviction?: (slot: string, reason: EvictionReason) => void;
  now?: () => number;
}

export class EvictionLoop {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly options: EvictionLoopOptions) {
    this.now = options.now ?? Date.now;
  }

  start(tickMs: number): void {
    this.timer = setInterval(() => void this.tick(), tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Never two at once: a slow disk makes a tick late, never piles ticks up. */
  tick(): Promise<void> {
    return (this.ticking ??= this.tickOnce().finally(() => (this.ticking = null)));
  }

  /** max_slots: stop least recently used idle slots to make room for `starting`, or refuse with slot.capacity. */
  async makeRoom(starting: string): Promise<void> {
    const { maxSlots } = this.options.limits();
    const plan = planEviction({ ...this.usage(), starting, maxSlots, memAvailableMb: Number.MAX_SAFE_INTEGER, pressureFloorMb: 0 });
    if (plan.refuse) {
      throw new SlotError('slot.capacity', `cannot start slot ${starting}: max_slots (${maxSlots}) reached and every running slot is busy`, { slot: starting, running: plan.refuse.running });
    }
    await Promise.all(plan.stop.map((s) => this.evict(s.name, s.reason)));
  }

  /** The live slots as the policy reads them, in configuration order. */
  usage(): { now: number; running: SlotUsage[] } {
    const running: SlotUsage[] = [];
    for (const slot of this.options.slots()) {
      const runtime = this.options.runtimes.get(slot.name);
      if (!runtime || !isLive(runtime.state)) continue;
      running.push({
        name: slot.name,
        state: runtime.state as SlotUsage['state'],
        inFlight: runtime.inFlight,
        lastUsedAt: runtime.lastUsedAt,
        idleTimeoutS: slot.idleTimeoutS,
        ...(runtime.memoryMb !== null && { memoryMb: runtime.memoryMb }),
      });
    }
    return { now: this.now(), running };
  }

  private async tickOnce(): Promise<void> {
    await Promise.all([...this.options.runtimes.values()].map((runtime) => runtime.observe()));
    const memory = await this.options.memAvailableMb();
    const plan = planEviction({ ...this.usage(), maxSlots: 0, memAvailableMb: memory, pressureFloorMb: this.options.limits().pressureFloorMb });
    await Promise.all(plan.stop.map((s) => this.evict(s.name, s.reason)));
  }

  private async evict(name: string, reason: EvictionReason): Promise<void> {
    const runtime = this.options.runtimes.get(name);
    if (!runtime) return;
    this.options.onEviction?.(name, reason);
    await runtime.serially(async () => {
      // Re-check inside the queue: a request may have arrived since the plan was made.
      if (runtime.state === 'ready' && runtime.inFlight === 0) await runtime.stop(`evicted: ${reason}`);
    });
  }
}
