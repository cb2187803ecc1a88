// Addresses that reach this host itself rather than another machine: loopback (127.0.0.0/8,
// ::1), link-local (169.254/16, where cloud metadata services answer, and fe80::/10) and
// the unspecified address (0.0.0.0/8 and ::, which a connect() on Linux takes as this host).
// An IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d) address counts as its IPv4
// address. A client off this host may never point svc at one of these (docs/auth.md).
import { isIPv4, isIPv6 } from 'node:net';
import { clientKeys } from './addresses.js';

export type InternalKind = 'loopback' | 'link-local' | 'unspecified';

/** What kind of this-host address `address` (an IP literal, brackets and a zone id allowed) is, or null. */
export function internalAddressKind(address: string): InternalKind | null {
  const text = address.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv4(text) && !isIPv6(text)) return null;
  const canonical = clientKeys(text).address;
  if (isIPv4(canonical)) return v4Kind(canonical.split('.').map(Number));
  const groups = canonical.split(':').map((g) => parseInt(g, 16));
  if (groups.slice(0, 6).every((g) => g === 0)) {
    if (groups[6] === 0 && groups[7] === 0) return 'unspecified';
    if (groups[6] === 0 && groups[7] === 1) return 'loopback';
    // ::a.b.c.d, the deprecated IPv4-compatible form.
    return v4Kind([groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff]);
  }
  return (groups[0]! & 0xffc0) === 0xfe80 ? 'link-local' : null;
}

function v4Kind(octets: readonly number[]): InternalKind | null {
  if (octets[0] === 127) return 'loopback';
  if (octets[0] === 0) return 'unspecified';
  if (octets[0] === 169 && octets[1] === 254) return 'link-local';
  return null;
}
