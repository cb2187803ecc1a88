import { describe, expect, it } from 'vitest';
import { accessFrom } from './access.js';

describe('access from whoami', () => {
  it('grants what the answer grants and says why the rest is off', () => {
    const reader = accessFrom({ auth_enabled: true, identity: { kind: 'token', id: 'a', label: 'r', scope: 'read-only' }, grants: ['public', 'v1-read', 'read'], host_authority: false });
    expect([reader.can('read'), reader.can('write'), reader.can('token-admin')]).toEqual([true, false, false]);
    expect(reader.why('read')).toBeUndefined();
    expect(reader.why('write')).toMatch(/read-only/);
    expect(reader.hostAuthority).toBe(false);
  });

  it('grants nothing while whoami is pending, so no page asks what it would be refused', () => {
    const pending = accessFrom(undefined, true);
    expect([pending.can('read'), pending.can('token-admin'), pending.hostAuthority]).toEqual([false, false, false]);
    expect(pending.why('write')).toMatch(/checking/);
  });

  it('refuses nothing when whoami itself failed (the server still decides)', () => {
    const unknown = accessFrom(undefined, false);
    expect([unknown.can('write'), unknown.can('token-admin'), unknown.hostAuthority]).toEqual([true, true, true]);
  });
});
