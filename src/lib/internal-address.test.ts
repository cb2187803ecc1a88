import { describe, expect, it } from 'vitest';
import { internalAddressKind } from './internal-address.js';

describe('internalAddressKind', () => {
  it('names loopback, link-local and unspecified addresses in every spelling', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'], ['[0:0:0:0:0:0:0:1]', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'], ['::127.0.0.1', 'loopback'],
      ['169.254.169.254', 'link-local'], ['::ffff:169.254.0.1', 'link-local'], ['fe80::1', 'link-local'], ['FEBF::1%eth0', 'link-local'],
      ['0.0.0.0', 'unspecified'], ['0.1.2.3', 'unspecified'], ['::', 'unspecified'], ['::ffff:0.0.0.0', 'unspecified'],
    ];
    for (const [address, kind] of cases) expect(internalAddressKind(address), address).toBe(kind);
  });

  it('leaves other addresses and names alone', () => {
    for (const address of ['10.0.0.1', '192.168.1.5', '::ffff:10.0.0.1', 'fd77::1', 'fec0::1', '2001:db8::1', 'localhost', 'example.com']) {
      expect(internalAddressKind(address), address).toBeNull();
    }
  });
});
