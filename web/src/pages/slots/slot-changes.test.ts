import { describe, expect, it } from 'vitest';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { deleteChanges, disableChanges, isRunning } from './slot-changes.js';

const slot = (over: Partial<SlotDetailPayload>) => ({ name: 'chat', model: 'tiny', file: 'slots/chat.toml', state: 'stopped', pid: null, port: 8090, in_flight: 0, ...over }) as SlotDetailPayload;

describe('what a slot action changes', () => {
  it('a stopped slot: the file goes, the state directory stays, no engine to stop', () => {
    expect(isRunning(slot({}))).toBe(false);
    expect(deleteChanges(slot({}))).toEqual([
      'slots/chat.toml is removed',
      'requests for chat or tiny are no longer served by it',
      'its state directory (engine.log, state.json) is kept',
    ]);
  });

  it('a running slot: its engine is named, with what is in flight', () => {
    const ready = slot({ state: 'ready', pid: 42, in_flight: 2 });
    expect(isRunning(ready)).toBe(true);
    expect(deleteChanges(ready)[1]).toBe('its running engine (pid 42, port 8090) is stopped, cutting off 2 request(s) in flight');
    expect(disableChanges(ready)).toHaveLength(3);
    expect(disableChanges(slot({}))).toHaveLength(2);
  });
});
