import { describe, expect, it } from 'vitest';
import { SlotError } from '../protocol/errors.js';
import { assertTransition, canTransition, isLive, SLOT_STATES } from './state-machine.js';

describe('slot state machine', () => {
  it('allows the lifecycle a slot goes through', () => {
    const path = ['stopped', 'starting', 'warming', 'ready', 'stopping', 'stopped'] as const;
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1]!, path[i]!)).toBe(true);
    expect(canTransition('starting', 'ready')).toBe(true); // engines without a loading phase
    expect(canTransition('ready', 'error')).toBe(true); // crash
    expect(canTransition('error', 'starting')).toBe(true); // automatic restart
    expect(canTransition('stopped', 'ready')).toBe(true); // adoption after a gateway restart
  });

  it('refuses moves that skip the lifecycle', () => {
    expect(canTransition('stopped', 'warming')).toBe(false);
    expect(canTransition('ready', 'starting')).toBe(false);
    expect(canTransition('ready', 'stopped')).toBe(false);
    expect(canTransition('stopping', 'ready')).toBe(false);
    for (const state of SLOT_STATES) expect(canTransition(state, state)).toBe(false);
  });

  it('throws slot.illegal_transition with the states in details', () => {
    try {
      assertTransition('chat', 'ready', 'starting');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SlotError);
      expect((error as SlotError).code).toBe('slot.illegal_transition');
      expect((error as SlotError).details).toEqual({ slot: 'chat', from: 'ready', to: 'starting' });
    }
  });

  it('counts only states with an engine as live', () => {
    expect(SLOT_STATES.filter(isLive)).toEqual(['starting', 'warming', 'ready', 'stopping']);
  });
});
