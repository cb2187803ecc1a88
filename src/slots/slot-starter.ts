// How a slot starts, whoever asks. In the slot's queue, room is made under max_slots
// (eviction-loop.ts), the start is planned (start-plan.ts) and the runtime starts its engine,
// recording any refusal on the way. A caller's start (ensureReady) waits in that queue; one
// that gives up (its client left) stops waiting, and the start goes on for the others. The
// gateway also starts slots by itself: the enabled ones at boot (boot-start.ts decides which),
// and a crashed one when its backoff ends, unless something newer came meanwhile.
import type { ResolvedConfig, SlotEntry } from '../config/load.js';
import { startEnabledSlots } from './boot-start.js';
import type { EvictionLoop } from './eviction-loop.js';
import type { SlotRegistry } from './slot-registry.js';
import type { SlotRuntime } from './slot-runtime.js';
import { planStart, type StartPlan } from './start-plan.js';

export interface SlotStarterOptions {
  config: () => ResolvedConfig;
  slots: SlotRegistry;
  eviction: EvictionLoop;
  memAvailableMb: () => number | Promise<number>;
  /** True once the gateway is shutting down: boot starts still to come are dropped. */
  closing: () => boolean;
}

export class SlotStarter {
  constructor(private readonly options: SlotStarterOptions) {}

  /** Inside the slot's queue: make room under max_slots, plan, start. */
  start(entry: SlotEntry, runtime: SlotRuntime): Promise<void> {
    return runtime.start(entry.config.slot.port, async () => {
      await this.options.eviction.makeRoom(entry.name);
      return this.plan(entry, true);
    });
  }

  /** A caller's start, queued behind the slot's other starts and stops; `signal` ends the wait, not the start. */
  startFor(entry: SlotEntry, runtime: SlotRuntime, signal?: AbortSignal): Promise<void> {
    const starting = runtime.serially(() => this.start(entry, runtime));
    return signal ? abortable(starting, signal) : starting;
  }

  /** What a start of `entry` runs; without `checkPort`, a preview (nothing will listen). */
  plan(entry: SlotEntry, checkPort: boolean): Promise<StartPlan> {
    const { config, slots } = this.options;
    return planStart({ entry, config: config(), engine: slots.engineOf(entry), modelOverride: slots.modelOverride(entry.name), checkPort });
  }

  /** Start every enabled slot that is not running yet: after the API listens, in the background; never throws. */
  async startEnabled(): Promise<void> {
    const { config, slots, eviction } = this.options;
    await startEnabledSlots({
      config,
      stateOf: (name) => slots.runtimes.get(name)?.state ?? 'stopped',
      running: () => eviction.usage().running,
      memAvailableMb: async () => this.options.memAvailableMb(),
      start: (name) => this.startIfStopped(name),
      refuse: (name, error) => slots.runtimes.get(name)?.refused(error),
      closing: this.options.closing,
    }).catch(() => undefined);
  }

  /** A crashed slot's backoff ended: start it again unless something newer came meanwhile. */
  async restartIfDue(name: string, failure: number): Promise<void> {
    const runtime = this.options.slots.runtimes.get(name);
    const entry = this.options.slots.configured(name);
    if (!runtime || !entry?.config.slot.enabled) return;
    await runtime.serially(async () => {
      if (runtime.takeRestart(failure)) await this.start(entry, runtime);
    }).catch(() => undefined); // a failed restart is the slot's own error, with its own backoff
  }

  /**
   * A boot start: only a slot still stopped when its turn in the queue comes. One that a
   * request started (or failed to start) meanwhile is left to that request and its backoff.
   */
  private async startIfStopped(name: string): Promise<void> {
    const entry = this.options.slots.entry(name);
    const runtime = this.options.slots.runtimeFor(entry);
    await runtime.serially(async () => {
      if (runtime.state === 'stopped') await this.start(entry, runtime);
    });
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
