// Where a tool server URL may lead (docs/auth.md, "Tool server URLs"). A URL makes svc connect
// out and read the answer, so one set by a client off this host could read a service only this
// host reaches. Such a client may name only a host in [mcp].allowed_hosts, and never one that
// is, or resolves to, a loopback, link-local or unspecified address or one of this gateway's
// own listeners. The check runs when the URL is set (names resolved) and again on every
// connection to a listed host (the address actually connected to), so a name that resolves
// elsewhere later (DNS rebinding) is refused too.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { clientKeys } from '../lib/addresses.js';
import { internalAddressKind } from '../lib/internal-address.js';

/** An address:port the gateway listens on (a wildcard host: every address of this host). */
export interface Listener {
  readonly host: string;
  readonly port: number;
}

/** Why a connection to address:port is refused, or null. */
export type TargetGuard = (address: string, port: number) => string | null;

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** The URL's port, or its scheme's default. */
export const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

/** Whether `url`'s host (and port, where the entry names one) is an entry of [mcp].allowed_hosts. */
export function allowListed(url: URL, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    let parsed: URL;
    try {
      parsed = new URL(`http://${entry}`);
    } catch {
      return false;
    }
    // Both sides spelled the WHATWG way: lower case, IPv4 in dotted quads, IPv6 compressed.
    if (parsed.hostname !== url.hostname) return false;
    const port = /:(\d{1,5})$/.exec(entry);
    return !port || Number(port[1]) === portOf(url);
  });
}

/** The addresses of this host's interfaces, canonical. */
function localAddresses(): Set<string> {
  const found = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const i of list ?? []) found.add(clientKeys(i.address).address);
  return found;
}

/** Why svc never connects to address:port for a client off this host, or null. */
export function refusedTarget(address: string, port: number, listeners: readonly Listener[]): string | null {
  const kind = internalAddressKind(address);
  if (kind) return `${address} is a ${kind} address of this host`;
  const canonical = clientKeys(address.replace(/^\[|\]$/g, '')).address;
  const own = listeners.some((l) => l.port === port && (WILDCARDS.has(l.host) ? localAddresses().has(canonical) : clientKeys(l.host.replace(/^\[|\]$/g, '')).address === canonical));
  return own ? `${address}:${port} is this gateway's own listener` : null;
}

/** The connection guard of a record's URL: one on a listed host is checked on every connection; null when no check applies. */
export function guardFor(url: string, allowed: readonly string[], listeners: () => readonly Listener[]): TargetGuard | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  return allowListed(parsed, allowed) ? (address, port) => refusedTarget(address, port, listeners()) : null;
}

/**
 * Why a client without host authority may not set `url`, or null when it may. A URL that does
 * not parse is left to the record's own validation (400): it leads nowhere. A name that does
 * not resolve now passes: its connections are checked when they are made.
 */
export async function urlRefusal(url: string, allowed: readonly string[], listeners: readonly Listener[]): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!allowListed(parsed, allowed)) return `${parsed.host} is not in [mcp].allowed_hosts`;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : await lookup(host, { all: true }).then((found) => found.map((a) => a.address), () => []);
  for (const address of addresses) {
    const why = refusedTarget(address, portOf(parsed), listeners);
    if (why) return isIP(host) ? why : `${host} resolves to ${why}`;
  }
  return null;
}
