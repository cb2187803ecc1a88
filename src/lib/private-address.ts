// Which addresses are private: reachable only from the host itself or from its own network,
// never routed on the internet. llama.cpp's rpc-server has no authentication at all (anyone
// who reaches its port can run graphs and read or write its memory), so svc binds one only to
// such an address unless a slot says allow_public (docs/scaling.md, Security).
//   IPv4: loopback 127.0.0.0/8, RFC 1918 10/8, 172.16/12, 192.168/16, link-local 169.254/16;
//   IPv6: loopback ::1, unique local fc00::/7, link-local fe80::/10; an IPv4-mapped address
//   (::ffff:a.b.c.d) counts as its IPv4 address.
// A wildcard (0.0.0.0, ::) binds every interface, public ones too, so it is not private; a
// host name is not an address and is not private either (what it resolves to can change).
import { isIPv4, isIPv6 } from 'node:net';
import { clientKeys } from './addresses.js';

const inV4 = (octets: readonly number[], prefix: readonly number[], bits: number): boolean => {
  const value = (o: readonly number[]) => ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (value(octets) & mask) === (value(prefix) & mask);
};

const PRIVATE_V4: ReadonlyArray<[number[], number]> = [
  [[127, 0, 0, 0], 8],
  [[10, 0, 0, 0], 8],
  [[172, 16, 0, 0], 12],
  [[192, 168, 0, 0], 16],
  [[169, 254, 0, 0], 16],
];

/** Whether `address` (an IP literal, brackets and a zone id allowed) is loopback, RFC 1918, ULA or link-local. */
export function isPrivateAddress(address: string): boolean {
  const text = address.trim().replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv4(text) && !isIPv6(text)) return false;
  const { address: canonical } = clientKeys(text);
  if (isIPv4(canonical)) {
    const octets = canonical.split('.').map(Number);
    return PRIVATE_V4.some(([prefix, bits]) => inV4(octets, prefix, bits));
  }
  const groups = canonical.split(':').map((g) => parseInt(g, 16));
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true; // ::1
  const first = groups[0] ?? 0;
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}
