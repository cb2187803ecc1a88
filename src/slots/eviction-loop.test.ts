// The eviction loop on its own, over fake runtimes: what a tick stops and why, the re-check
// inside a slot's queue, max_slots before a start, and ticks that never overlap. The clock
// is injected; nothing waits on a timer.
import { describe, expect, it } from 'vitest';
import { SerialQueue } from '../lib/serial-queue.js';
import type { EvictionReason } from './eviction.js';
import { EvictionLoop, type EvictableRuntime } from './eviction-loop.js';
import type { SlotState } from './state-machine.js';

const NOW = 1_000_000;

class FakeRuntime implements EvictableRuntime {
  stops: string[] = [];
  observed = 0;
  private readonly queue = new SerialQueue();
  constructor(public state: SlotState, public inFlight = 0, public lastUsedAt = NOW - 10_000, public memoryMb: number | null = null) {}
  serially<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }
  async stop(reason: string): Promise<void> {
    this.stops.push(reason);
    this.state = 'stopped';
  }
  async observe(): Promise<void> {
    this.observed++;
  }
}

/** A promise with its resolve, for events a test waits on. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

function loop(runtimes: Record<string, FakeRuntime>, over: { idleTimeoutS?: number; maxSlots?: number; pressureFloorMb?: number; memory?: number | (() => Promise<number>) } = {}) {
  const evictions: Array<[string, EvictionReason]> = [];
  let evicted = deferred();
  const memory = over.memory ?? 100_000;
  const eviction = new EvictionLoop({
    slots: () => Object.keys(runtimes).map((name) => ({ name, idleTimeoutS: over.idleTimeoutS ?? 300 })),
    limits: () => ({ maxSlots: over.maxSlots ?? 0, pressureFloorMb: over.pressureFloorMb ?? 0 }),
    runtimes: new Map(Object.entries(runtimes)),
    memAvailableMb: typeof memory === 'number' ? () => memory : memory,
    onEviction: (slot, reason) => {
      evictions.push([slot, reason]);
      evicted.resolve();
      evicted = deferred();
    },
    now: () => NOW,
  });
  /** Resolves at the next eviction the loop reports (before the slot's queue runs the stop). */
  const nextEviction = () => evicted.promise;
  return { eviction, evictions, nextEviction };
}

describe('EvictionLoop', () => {
  it('a tick lets every runtime look at its engine, then stops the ready idle slots past their timeout', async () => {
    const idle = new FakeRuntime('ready');
    const busy = new FakeRuntime('ready', 1);
    const loading = new FakeRuntime('warming');
    const stopped = new FakeRuntime('stopped');
    const { eviction, evictions } = loop({ idle, busy, loading, stopped }, { idleTimeoutS: 5 });
    await eviction.tick();
    expect([idle, busy, loading, stopped].map((r) => r.observed)).toEqual([1, 1, 1, 1]);
    expect(evictions).toEqual([['idle', 'idle']]);
    expect(idle.stops).toEqual(['evicted: idle']);
    expect([busy, loading, stopped].flatMap((r) => r.stops)).toEqual([]);
  });

  it('under memory pressure stops idle slots, least recently used first, until the floor is met', async () => {
    const older = new FakeRuntime('ready', 0, NOW - 20_000, 600);
    const newer = new FakeRuntime('ready', 0, NOW - 10_000, 600);
    const { eviction, evictions } = loop({ newer, older }, { pressureFloorMb: 1_000, memory: 500 });
    await eviction.tick();
    expect(evictions).toEqual([['older', 'pressure']]);
    expect(older.stops).toEqual(['evicted: pressure']);
    expect(newer.stops).toEqual([]);
  });

  it('re-checks inside the slot\'s queue: a request that arrived after the plan keeps the slot', async () => {
    const chat = new FakeRuntime('ready');
    let release!: () => void;
    const blocker = chat.serially(() => new Promise<void>((resolve) => (release = resolve)));
    const { eviction, evictions, nextEviction } = loop({ chat }, { idleTimeoutS: 5 });
    const planned = nextEviction();
    const ticked = eviction.tick();
    await planned; // the tick chose chat; its stop waits behind the blocker
    expect(evictions).toEqual([['chat', 'idle']]);
    chat.inFlight = 1; // a request was handed over meanwhile
    release();
    await blocker;
    await ticked;
    expect(chat.stops).toEqual([]);
    expect(chat.state).toBe('ready');
  });

  it('ticks never overlap: a tick asked for during one is that one', async () => {
    // The memory reading of each tick is held until the test answers it.
    const readings: Array<ReturnType<typeof deferred<number>>> = [];
    let asked = deferred();
    const memory = () => {
      const reading = deferred<number>();
      readings.push(reading);
      asked.resolve();
      asked = deferred();
      return reading.promise;
    };
    const chat = new FakeRuntime('ready');
    const { eviction } = loop({ chat }, { memory });
    const firstAsked = asked.promise;
    const first = eviction.tick();
    expect(eviction.tick()).toBe(first);
    await firstAsked;
    expect(eviction.tick()).toBe(first); // still under way
    readings[0]!.resolve(100_000);
    await first;
    expect(chat.observed).toBe(1);
    const nextAsked = asked.promise;
    const next = eviction.tick();
    expect(next).not.toBe(first);
    await nextAsked;
    readings[1]!.resolve(100_000);
    await next;
    expect(readings).toHaveLength(2);
    expect(chat.observed).toBe(2);
  });

  it('max_slots: makeRoom stops the least recently used idle slot, or refuses with slot.capacity when all are busy', async () => {
    const a = new FakeRuntime('ready', 0, NOW - 20_000);
    const b = new FakeRuntime('ready', 0, NOW - 10_000);
    const full = loop({ a, b, c: new FakeRuntime('stopped') }, { maxSlots: 2 });
    await full.eviction.makeRoom('c');
    expect(full.evictions).toEqual([['a', 'capacity']]);
    expect(a.stops).toEqual(['evicted: capacity']);

    const busy = loop({ x: new FakeRuntime('ready', 1), y: new FakeRuntime('stopped') }, { maxSlots: 1 });
    await expect(busy.eviction.makeRoom('y')).rejects.toMatchObject({ code: 'slot.capacity', details: { slot: 'y', running: ['x'] } });
  });

  it('usage lists the live slots in configuration order, with their memory when known', () => {
    const { eviction } = loop({ b: new FakeRuntime('ready', 2, NOW - 1, 700), a: new FakeRuntime('stopping'), c: new FakeRuntime('error') });
    expect(eviction.usage()).toEqual({
      now: NOW,
      running: [
        { name: 'b', state: 'ready', inFlight: 2, lastUsedAt: NOW - 1, idleTimeoutS: 300, memoryMb: 700 },
        { name: 'a', state: 'stopping', inFlight: 0, lastUsedAt: NOW - 10_000, idleTimeoutS: 300 },
      ],
    });
  });
});
