import { describe, expect, it } from 'vitest';
import { DispatchError, SlotError } from '../protocol/errors.js';
import { StartFailures } from './start-failures.js';

describe('StartFailures', () => {
  it('remembers a start that cannot succeed as configured, until the config changes or the slot started after it', () => {
    let now = Date.parse('2026-05-01T10:00:00.000Z');
    const failures = new StartFailures(() => now);
    const config = {};
    failures.record('a', config, new SlotError('slot.binary_missing', 'no llama-server'));
    failures.record('b', config, new SlotError('slot.model_missing', 'no file'));
    failures.record('c', config, new SlotError('slot.load_failed', 'exited'));
    expect([failures.has('a', config, null), failures.has('b', config, '2026-05-01T09:00:00.000Z')]).toEqual([true, true]);
    expect(failures.has('a', {}, null)).toBe(false); // a reload: the fix may be in it
    expect(failures.has('a', config, null)).toBe(false); // and it is forgotten
    now += 60_000;
    expect(failures.has('b', config, '2026-05-01T10:00:30.000Z')).toBe(false); // started after the failure
    expect(failures.has('c', config, '2026-05-01T10:00:00.000Z')).toBe(true); // that start was the failed one
  });

  it('ignores busy or transient failures and errors that are not the slot\'s', () => {
    const failures = new StartFailures();
    const config = {};
    failures.record('a', config, new SlotError('slot.capacity', 'full'));
    failures.record('b', config, new SlotError('slot.not_ready', 'crash loop'));
    failures.record('c', config, new DispatchError('dispatch.upstream_timeout', 'slow'));
    failures.record('d', config, new Error('client left'));
    expect(['a', 'b', 'c', 'd'].some((s) => failures.has(s, config, null))).toBe(false);
  });
});
