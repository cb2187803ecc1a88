import { describe, expect, it } from 'vitest';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { actionRefusal, deleteChanges, disableChanges, isRunning } from './slot-changes.js';

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

describe('which runtime action a state allows', () => {
  const allowed = (state: string) => (['load', 'unload', 'restart'] as const).filter((action) => actionRefusal(action, state) === null);
  it('loads a stopped or failed slot, unloads a running or loading one, restarts a ready one', () => {
    expect(allowed('stopped')).toEqual(['load']);
    expect(allowed('error')).toEqual(['load']);
    expect(allowed('starting')).toEqual(['unload']);
    expect(allowed('warming')).toEqual(['unload']);
    expect(allowed('ready')).toEqual(['unload', 'restart']);
    expect(allowed('stopping')).toEqual([]);
    expect(allowed('disabled')).toEqual([]);
    expect(actionRefusal('load', 'ready')).toBe('already loaded');
    expect(actionRefusal('unload', 'stopped')).toBe('not running');
  });
});
