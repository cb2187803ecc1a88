import { describe, expect, it } from 'vitest';
import { accessFrom } from '../../access.js';
import { HOST_ONLY, hostWriteWhy } from './host-write.js';

const who = (grants: string[], host: boolean) =>
  accessFrom({ auth_enabled: true, identity: { kind: 'token', id: 'a', label: 't', scope: 'admin' }, grants: grants as never, host_authority: host });

describe('the Agents page\'s host-only writes', () => {
  it('are open with the write grant on this host', () => {
    expect(hostWriteWhy(who(['read', 'write'], true))).toBeUndefined();
  });

  it('are closed to a read-only token, saying so', () => {
    expect(hostWriteWhy(who(['read'], true))).toMatch(/read-only/);
  });

  it('are closed to a LAN client that may write but has no host authority', () => {
    expect(hostWriteWhy(who(['read', 'write'], false))).toBe(HOST_ONLY);
  });

  it('are closed while whoami is read', () => {
    expect(hostWriteWhy(accessFrom(undefined, true))).toMatch(/checking/);
  });
});
