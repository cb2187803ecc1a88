import { describe, expect, it } from 'vitest';
import type { SettingDescription } from '../../../../src/protocol/settings-wire.js';
import { applyWords, changesOf, patchOf, readOnlyReason, valueAt } from './edits.js';

const describe_ = (key: string, type: string, nullable = false): SettingDescription => ({
  key, section: key.split('.')[0]!, type, nullable, default: null, description: '', apply_class: 'live', minimum: 0,
});
const keys = [describe_('slots.idle_timeout_s', 'integer'), describe_('activity.max_rows', 'integer', true), describe_('activity.enabled', 'boolean')];
const settings = { slots: { idle_timeout_s: 300 }, activity: { max_rows: 50000, enabled: true } };

describe('edits', () => {
  it('reads a dotted key', () => {
    expect(valueAt(settings, 'slots.idle_timeout_s')).toBe(300);
    expect(valueAt(settings, 'slots.nothing.here')).toBeUndefined();
  });

  it('keeps only drafts that check and differ, and makes them one partial object', () => {
    const changes = changesOf(keys, { 'slots.idle_timeout_s': '600', 'activity.max_rows': '', 'activity.enabled': true }, settings);
    expect(changes).toEqual([
      { key: 'slots.idle_timeout_s', before: 300, after: 600 },
      { key: 'activity.max_rows', before: 50000, after: null },
    ]);
    expect(patchOf(changes)).toEqual({ slots: { idle_timeout_s: 600 }, activity: { max_rows: null } });
    expect(changesOf(keys, { 'slots.idle_timeout_s': '-5' }, settings)).toEqual([]);
  });

  it('says how a change applies, naming the running slots a slot-restart key waits for', () => {
    expect(applyWords('live')).toBe('applies at once');
    expect(applyWords('manual')).toBe('needs a manual restart of svc');
    expect(applyWords('restart:slots', ['chat', 'embed'])).toContain('restart chat, embed (running now)');
    expect(applyWords('restart:slots', [])).toContain('no slot is running now');
    expect(applyWords('restart:svc-api')).toContain('gateway restarts');
  });

  it('says why a key is read-only: layout, a read-only token, a host-only key off the host', () => {
    const hostOnly = { 'slots.publish_host': 'exposes every engine port' };
    const onHost = { hostAuthority: true, writeRefused: undefined, hostOnly };
    const offHost = { ...onHost, hostAuthority: false };
    expect(readOnlyReason('slots.publish_host', onHost)).toBeUndefined();
    expect(readOnlyReason('slots.publish_host', offHost)).toContain('host-only (exposes every engine port)');
    expect(readOnlyReason('slots.idle_timeout_s', offHost)).toBeUndefined();
    expect(readOnlyReason('slots.idle_timeout_s', { ...onHost, writeRefused: 'read-only token' })).toBe('read-only token');
    expect(readOnlyReason('meta.schema_version', onHost)).toContain('svc config migrate');
  });
});
