import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './private-address.js';

describe('isPrivateAddress', () => {
  it('takes loopback, RFC 1918 and link-local IPv4 addresses', () => {
    for (const a of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.20', '169.254.3.4']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
  });

  it('refuses public IPv4 addresses, the edges of the private blocks and the wildcard', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.0', '192.169.0.1', '11.0.0.1', '169.255.0.1', '100.64.0.1', '0.0.0.0', '255.255.255.255']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });

  it('takes ::1, unique local (fc00::/7) and link-local (fe80::/10) IPv6, in any spelling', () => {
    for (const a of ['::1', '0:0:0:0:0:0:0:1', '[::1]', 'fd00::1', 'fc12:3456::7', 'FD77:0:1::2', 'fe80::1', 'fe80::1%eth0', 'febf::1', '[fd00::5]']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
  });

  it('refuses global IPv6, the wildcard and the neighbours of the private blocks', () => {
    for (const a of ['2001:db8::1', '2606:4700::1111', '::', 'fe00::1', 'fec0::1', 'fb00::1', '::2']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(isPrivateAddress('::ffff:10.1.2.3')).toBe(true);
    expect(isPrivateAddress('::ffff:192.168.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false);
  });

  it('refuses what is no IP address: a host name, an empty string', () => {
    for (const a of ['localhost', 'worker.lan', '', '10.0.0', '10.0.0.1:50052']) expect(isPrivateAddress(a), a).toBe(false);
  });
});
