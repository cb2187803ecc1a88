// The memory database's move table (pure): the supervisor's Lifecycle throws on any other move.
import { describe, expect, it } from 'vitest';
import { canMove } from '../../lib/supervision/lifecycle.js';
import type { MemoryEngineState } from '../../protocol/events.js';
import { PG_MOVES } from './supervisor.js';

const STATES: MemoryEngineState[] = ['stopped', 'starting', 'ready', 'stopping', 'crashed', 'error'];

describe('PG_MOVES', () => {
  it('has a row for every state, naming only states, and no state moves to itself', () => {
    expect(Object.keys(PG_MOVES).sort()).toEqual([...STATES].sort());
    for (const [from, targets] of Object.entries(PG_MOVES) as Array<[MemoryEngineState, MemoryEngineState[]]>) {
      for (const to of targets) expect(STATES).toContain(to);
      expect(canMove(PG_MOVES, from, from)).toBe(false);
    }
  });

  it('allows a first use, a crash and its restart, a crash loop tried again, and a stop', () => {
    const path: MemoryEngineState[] = ['stopped', 'starting', 'ready', 'crashed', 'starting', 'error', 'starting', 'ready', 'stopping', 'stopped'];
    for (let i = 1; i < path.length; i++) expect(canMove(PG_MOVES, path[i - 1]!, path[i]!)).toBe(true);
    expect(canMove(PG_MOVES, 'stopped', 'ready')).toBe(false);
    expect(canMove(PG_MOVES, 'stopping', 'starting')).toBe(false);
  });
});
