import { describe, expect, it } from 'vitest';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { rereadsDetail } from './use-slot-live.js';

const event = (type: string, data: Record<string, unknown>) => ({ type, data }) as unknown as SvcEvent;

describe('which events re-read a slot detail', () => {
  it('re-reads when a move of this slot settles, not while it starts', () => {
    expect(rereadsDetail(event('slot.state', { slot: 'chat', from: 'warming', to: 'ready' }), 'chat')).toBe(true);
    expect(rereadsDetail(event('slot.state', { slot: 'chat', from: 'stopped', to: 'starting' }), 'chat')).toBe(false);
    expect(rereadsDetail(event('slot.state', { slot: 'other', from: 'warming', to: 'ready' }), 'chat')).toBe(false);
  });

  it('re-reads on edits of this slot and on a reload; never on a deletion', () => {
    expect(rereadsDetail(event('slot.edited', { slot: 'chat', keys: ['slot.port'] }), 'chat')).toBe(true);
    expect(rereadsDetail(event('config.reloaded', { slots: [] }), 'chat')).toBe(true);
    expect(rereadsDetail(event('slot.deleted', { slot: 'chat' }), 'chat')).toBe(false);
  });
});
