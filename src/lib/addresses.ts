// Client addresses. Loopback is all of 127.0.0.0/8 and ::1, also in their IPv4-mapped form.
import { isIPv4, isIPv6 } from 'node:net';

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** What limits count a client by: its exact address, and for IPv6 also the /64 it is in. */
export interface ClientKeys {
  /** One spelling per address: an IPv4-mapped IPv6 address is its IPv4 address. */
  readonly address: string;
  /** `<first four groups>::/64`; absent for IPv4 (and for text that is no address). */
  readonly network?: string;
}

/**
 * One host can hold a whole /64 (SLAAC privacy addresses rotate inside it, RFC 8981), so
 * a limit keyed only by the exact IPv6 address is a limit per guess. The same address has
 * many spellings (`fd00::1`, `fd00:0:0:0:0:0:0:1`, `::ffff:10.0.0.1` for 10.0.0.1): keys use one.
 */
export function clientKeys(raw: string): ClientKeys {
  const text = raw.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(text)) return { address: text };
  const groups = ipv6Groups(text);
  if (!groups) return { address: text };
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return { address: dottedQuad(groups[6]!, groups[7]!) };
  const hex = groups.map((g) => g.toString(16));
  return { address: hex.join(':'), network: `${hex.slice(0, 4).join(':')}::/64` };
}

/** The eight 16-bit groups of an IPv6 address, or undefined when the text is not one. */
function ipv6Groups(text: string): number[] | undefined {
  if (!isIPv6(text)) return undefined;
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  // A dotted tail (::ffff:1.2.3.4, ::1.2.3.4) is the last two groups.
  if (isIPv4(dotted)) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    tail = [(a << 8) | b, (c << 8) | d];
    head = text.slice(0, text.endsWith(`::${dotted}`) ? lastColon + 1 : lastColon);
  }
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const [left, right] = head.split('::') as [string, string | undefined];
  if (right === undefined) return [...parse(left), ...tail];
  const before = parse(left);
  const after = [...parse(right), ...tail];
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function dottedQuad(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The addresses that mean "every interface" when bound: no client can connect to them as such. */
const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['', '0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']);

/**
 * The URL a client on this host reaches a server bound to `host`:`port` by. A wildcard bind
 * (0.0.0.0, ::) is reached over loopback (127.0.0.1: a `::` bind on Linux takes IPv4 too);
 * an IPv6 address goes in brackets.
 */
export function localUrlOf(host: string, port: number): string {
  const bare = host.replace(/^\[|\]$/g, '');
  const reachable = WILDCARD_HOSTS.has(host) || WILDCARD_HOSTS.has(bare) ? '127.0.0.1' : bare;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}
