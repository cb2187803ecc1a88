import { describe, expect, it } from 'vitest';
import { bootStartDecision, planEviction, type EvictionInput, type SlotUsage } from './eviction.js';

const NOW = 1_000_000;
const slot = (name: string, over: Partial<SlotUsage> = {}): SlotUsage => ({
  name, state: 'ready', inFlight: 0, lastUsedAt: NOW - 10_000, idleTimeoutS: 300, ...over,
});
const plan = (over: Partial<EvictionInput>) =>
  planEviction({ now: NOW, running: [], maxSlots: 0, memAvailableMb: 100_000, pressureFloorMb: 0, ...over });

describe('planEviction', () => {
  it('stops nothing when nothing is due', () => {
    expect(plan({ running: [slot('a'), slot('b')] })).toEqual({ stop: [] });
  });

  it('stops slots idle past their timeout, least recently used first', () => {
    const running = [slot('new', { lastUsedAt: NOW - 2_000, idleTimeoutS: 1 }), slot('old', { lastUsedAt: NOW - 5_000, idleTimeoutS: 1 }), slot('fresh', { lastUsedAt: NOW - 500, idleTimeoutS: 1 })];
    expect(plan({ running }).stop).toEqual([{ name: 'old', reason: 'idle' }, { name: 'new', reason: 'idle' }]);
  });

  it('never idles out a slot with timeout 0, in flight, or not ready', () => {
    const running = [
      slot('pinned', { idleTimeoutS: 0, lastUsedAt: 0 }),
      slot('busy', { inFlight: 1, idleTimeoutS: 1, lastUsedAt: 0 }),
      slot('loading', { state: 'warming', idleTimeoutS: 1, lastUsedAt: 0 }),
    ];
    expect(plan({ running }).stop).toEqual([]);
  });

  it('max_slots: starting one more evicts the LRU idle slot', () => {
    const running = [slot('a', { lastUsedAt: NOW - 100 }), slot('b', { lastUsedAt: NOW - 900 }), slot('c', { lastUsedAt: NOW - 500 })];
    expect(plan({ running, starting: 'd', maxSlots: 3 }).stop).toEqual([{ name: 'b', reason: 'capacity' }]);
    expect(plan({ running, starting: 'd', maxSlots: 2 }).stop).toEqual([{ name: 'b', reason: 'capacity' }, { name: 'c', reason: 'capacity' }]);
    expect(plan({ running, starting: 'd', maxSlots: 4 }).stop).toEqual([]);
    expect(plan({ running, starting: 'd', maxSlots: 0 }).stop).toEqual([]);
  });

  it('max_slots: refuses when every running slot is busy, and counts idle stops towards room', () => {
    const busy = [slot('a', { inFlight: 2 }), slot('b', { state: 'starting' })];
    expect(plan({ running: busy, starting: 'c', maxSlots: 2 })).toEqual({ stop: [], refuse: { reason: 'capacity', running: ['a', 'b'] } });
    const withIdle = [slot('a', { inFlight: 1 }), slot('b', { idleTimeoutS: 1, lastUsedAt: 0 })];
    expect(plan({ running: withIdle, starting: 'c', maxSlots: 2 }).stop).toEqual([{ name: 'b', reason: 'idle' }]);
  });

  it('the slot being started is never evicted for itself', () => {
    expect(plan({ running: [slot('a'), slot('b', { state: 'starting' })], starting: 'b', maxSlots: 1 }).stop).toEqual([{ name: 'a', reason: 'capacity' }]);
  });

  it('pressure: stops idle slots LRU first until the known memory lifts the floor', () => {
    const running = [slot('a', { lastUsedAt: NOW - 300, memoryMb: 1000 }), slot('b', { lastUsedAt: NOW - 900, memoryMb: 1000 }), slot('c', { lastUsedAt: NOW - 600, memoryMb: 1000 }), slot('busy', { inFlight: 1, lastUsedAt: 0, memoryMb: 9000 })];
    expect(plan({ running, memAvailableMb: 6500, pressureFloorMb: 8000 }).stop).toEqual([{ name: 'b', reason: 'pressure' }, { name: 'c', reason: 'pressure' }]);
    expect(plan({ running, memAvailableMb: 8000, pressureFloorMb: 8000 }).stop).toEqual([]);
    expect(plan({ running, memAvailableMb: 100, pressureFloorMb: 0 }).stop).toEqual([]);
  });

  it('pressure: with unknown memory, stops one slot per evaluation', () => {
    const running = [slot('a', { lastUsedAt: NOW - 300 }), slot('b', { lastUsedAt: NOW - 900 })];
    expect(plan({ running, memAvailableMb: 10, pressureFloorMb: 8000 }).stop).toEqual([{ name: 'b', reason: 'pressure' }]);
  });

  it('breaks ties in last use by name', () => {
    const running = [slot('b', { lastUsedAt: 5, idleTimeoutS: 1 }), slot('a', { lastUsedAt: 5, idleTimeoutS: 1 })];
    expect(plan({ running }).stop.map((s) => s.name)).toEqual(['a', 'b']);
    expect(plan({ running: [slot('b', { lastUsedAt: NOW - 5 }), slot('a', { lastUsedAt: NOW - 5 })], starting: 'c', maxSlots: 2 }).stop).toEqual([{ name: 'a', reason: 'capacity' }]);
  });
});

describe('bootStartDecision', () => {
  const boot = (over: Partial<Parameters<typeof bootStartDecision>[0]>) =>
    bootStartDecision({ running: [], starting: 'next', maxSlots: 0, memAvailableMb: 100_000, pressureFloorMb: 0, ...over });

  it('starts when there is room and memory', () => {
    expect(boot({ running: [slot('a')], maxSlots: 2, pressureFloorMb: 1000 })).toEqual({ start: true });
    expect(boot({ running: [slot('a'), slot('b'), slot('c')] })).toEqual({ start: true }); // max_slots 0: unlimited
  });

  it('never evicts to make room: at max_slots it refuses, even when every running slot is idle', () => {
    const running = [slot('a', { lastUsedAt: 0, idleTimeoutS: 1 }), slot('b', { state: 'starting' })];
    expect(boot({ running, maxSlots: 2 })).toEqual({ start: false, reason: 'capacity', running: ['a', 'b'] });
    expect(boot({ running: [slot('next', { state: 'starting' })], maxSlots: 1 })).toEqual({ start: true }); // itself does not count
  });

  it('refuses under the memory-pressure floor (the next tick would stop an idle slot again); 0 disables the floor', () => {
    expect(boot({ memAvailableMb: 500, pressureFloorMb: 1000 })).toEqual({ start: false, reason: 'pressure', running: [] });
    expect(boot({ memAvailableMb: 500, pressureFloorMb: 0 })).toEqual({ start: true });
  });
});
