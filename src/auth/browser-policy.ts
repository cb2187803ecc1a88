// What a web browser may make svc do (docs/auth.md, "Default mode on a network"). In default
// mode svc asks no credentials, so a page the user opens could drive a gateway it can reach:
// by DNS rebinding (a name the attacker controls, pointed at this host: the browser then
// sends the attacker's name as Host) or by a cross-site request (a form, or fetch with
// mode "no-cors", which needs no preflight). Three checks stop both, before any route runs:
//   1. Host must be one of the gateway's names: a loopback or local IP literal, localhost or
//      *.localhost (RFC 6761: browsers resolve them to loopback themselves, so they cannot be
//      rebound), the auth-mode hostname, or a name in [api].public_hostnames. Every method.
//   2. A mutation whose Origin is another origin (or "null"), or whose Sec-Fetch-Site says
//      cross-site, is refused unless the origin is in [api].allowed_origins.
//   3. A POST a form or a no-cors fetch could send (a simple content type or none, and no
//      Authorization or X-* header: nothing that takes a preflight) is refused when a browser's
//      own headers say a page elsewhere sent it: Sec-Fetch-Site same-site or cross-site, a
//      Referer from another origin, or (with neither) Sec-Fetch-Mode no-cors or navigate, or
//      Upgrade-Insecure-Requests. With no such marker it is a tool's (curl -X POST, curl -F),
//      or this origin's own page, and it is served. (PUT, DELETE and PATCH are never simple
//      requests: a page needs a preflight for them.)
// Pure: the request's parts in, a refusal or undefined out.
import { isIP } from 'node:net';
import { RequestError } from '../protocol/errors.js';
import { isLoopbackAddress } from '../lib/addresses.js';

export interface BrowserRules {
  /** [api].public_hostnames plus the auth-mode hostname, lower-case; "*.example.org" matches any subdomain. */
  readonly names: readonly string[];
  /** [api].allowed_origins, as `scheme://host[:port]`, lower-case, default ports dropped. */
  readonly origins: ReadonlySet<string>;
  /** Host headers already decided, by the local address they arrived on. */
  readonly decided: Map<string, Map<string, boolean>>;
  /** Origin headers already placed, by the Host they came with ("<host> <origin>"). */
  readonly placed: Map<string, OriginVerdict>;
  /** Origin headers already looked up in `origins`. */
  readonly listed: Map<string, boolean>;
}

/** Where an Origin says a request comes from: this gateway's own origin, a listed one, or elsewhere. */
type OriginVerdict = 'own' | 'listed' | 'elsewhere';

export interface BrowserRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The address the connection arrived on (socket.localAddress). */
  readonly localAddress: string | undefined;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Content types a form or a no-cors fetch may send (Fetch standard, CORS-safelisted). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

export function compileBrowserRules(publicHostnames: readonly string[], allowedOrigins: readonly string[], authHostname?: string): BrowserRules {
  const names = [...publicHostnames, ...(authHostname ? [authHostname] : [])].map((name) => canonicalName(stripDot(name.toLowerCase())));
  const origins = new Set(allowedOrigins.map((origin) => normalizeOrigin(origin)).filter((o): o is string => o !== undefined));
  return { names, origins, decided: new Map(), placed: new Map(), listed: new Map() };
}

/** The refusal for a request a browser should not be able to make, or undefined. */
export function browserRefusal(request: BrowserRequest, rules: BrowserRules): RequestError | undefined {
  const host = first(request.headers.host);
  if (!answersTo(host, request.localAddress, rules)) {
    return new RequestError('request.unknown_host', `svc does not answer to the name ${JSON.stringify(host ?? '')}: a web page could reach it by rebinding that name to this host. If you use that name, add it to [api].public_hostnames on the host (svc config edit)`, { host: host ?? '' });
  }
  if (READS.has(request.method)) return undefined;
  const origin = first(request.headers.origin);
  const site = first(request.headers['sec-fetch-site']);
  if (origin !== undefined ? placeOrigin(origin, host!, rules) === 'elsewhere' : site === 'cross-site') {
    return new RequestError('request.cross_site', `a page on ${origin ?? 'another site'} may not change svc. If you trust that origin, add it to [api].allowed_origins on the host (svc config edit)`, { origin: origin ?? null, sec_fetch_site: site ?? null });
  }
  // Only POST: a form or a no-cors fetch can send no other mutation (PUT, DELETE, PATCH always take a preflight).
  if (request.method !== 'POST') return undefined;
  const marker = pageElsewhere(request.headers, host!, rules);
  if (marker !== undefined && !provesNonBrowser(request.headers)) {
    const value = first(request.headers[marker])!.slice(0, MAX_ECHO);
    return new RequestError('request.form_post', `this POST comes from a web page elsewhere (${marker}: ${value}) and is one a form or a no-cors fetch can send, so svc refuses it. A page you trust goes in [api].allowed_origins on the host; a tool should send no browser headers (or send Content-Type: application/json)`, { method: request.method, marker, value });
  }
  return undefined;
}

/** Whether the allowed origin list names `origin` (for CORS answers); decided once per header value. */
export function allowedOrigin(origin: string | undefined, rules: BrowserRules): boolean {
  if (origin === undefined) return false;
  let known = rules.listed.get(origin);
  if (known === undefined) {
    known = rules.origins.has(normalizeOrigin(origin) ?? '');
    remember(rules.listed, origin, known);
  }
  return known;
}

/** Enough for every name and address a host is reached by; a client spraying names only empties it. */
const MAX_DECIDED = 256;

/** A decision kept for the next request that carries the same header (parsing a URL costs microseconds). */
function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= MAX_DECIDED) cache.clear();
  cache.set(key, value);
}

/** Where an Origin header says a request comes from, decided once per Host and Origin. */
function placeOrigin(origin: string, host: string, rules: BrowserRules): OriginVerdict {
  // The common case, a page of this origin as browsers spell it, needs no parse and no lookup.
  if (origin.endsWith(host) && (origin.length === host.length + 7 ? origin.startsWith('http://') : origin.length === host.length + 8 && origin.startsWith('https://'))) return 'own';
  const key = `${host} ${origin}`;
  let verdict = rules.placed.get(key);
  if (verdict === undefined) {
    verdict = sameOrigin(origin, host) ? 'own' : allowedOrigin(origin, rules) ? 'listed' : 'elsewhere';
    remember(rules.placed, key, verdict);
  }
  return verdict;
}

/** Whether svc answers to a Host header; decided once per header and local address (parsing one costs microseconds). */
function answersTo(host: string | undefined, localAddress: string | undefined, rules: BrowserRules): boolean {
  if (host === undefined) return false;
  const local = localAddress ?? '';
  let byHost = rules.decided.get(local);
  if (!byHost) rules.decided.set(local, (byHost = new Map()));
  let known = byHost.get(host);
  if (known === undefined) {
    const name = hostnameOf(host);
    known = name !== undefined && knownHost(name, localAddress, rules);
    remember(byHost, host, known);
  }
  return known;
}

function knownHost(name: string, localAddress: string | undefined, rules: BrowserRules): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const literal = name.startsWith('[') ? name.slice(1, -1) : name;
  if (isIP(literal)) return isLoopbackAddress(literal) || sameAddress(literal, localAddress) || rules.names.includes(literal);
  return rules.names.some((known) => known === name || (known.startsWith('*.') && name.endsWith(known.slice(1))));
}

/** How much of a header's value a refusal repeats. */
const MAX_ECHO = 200;
/** Sec-Fetch-Mode values of a form's navigation or a no-cors fetch ("nested-navigate": Chromium 76-79's iframes). */
const FORM_MODES = new Set(['navigate', 'nested-navigate', 'no-cors']);

/**
 * The browser header that says a page on another origin (not a listed one) sent a request,
 * or undefined when none does: a tool sends none of them, and this origin's own pages say
 * so. The strongest marker present decides (browsers send them together); Origin was
 * judged by rule 2 already (refused unless this origin or a listed one).
 */
function pageElsewhere(headers: BrowserRequest['headers'], host: string, rules: BrowserRules): string | undefined {
  if (headers.origin !== undefined) return undefined;
  const site = first(headers['sec-fetch-site']);
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? undefined : 'sec-fetch-site';
  // Browsers without Sec-Fetch-* (before 2020-2023) and without Origin on forms (Firefox before 70) still send a Referer.
  const referer = first(headers.referer);
  if (referer !== undefined) return sameOrigin(referer, host) || rules.origins.has(normalizeOrigin(referer) ?? '') ? undefined : 'referer';
  const mode = first(headers['sec-fetch-mode']);
  if (mode !== undefined && FORM_MODES.has(mode)) return 'sec-fetch-mode';
  // A navigation (a form's submission) from a browser that sent no Referer.
  if (headers['upgrade-insecure-requests'] !== undefined) return 'upgrade-insecure-requests';
  return undefined;
}

/** A header a page cannot set on a request that skips the CORS preflight. */
function provesNonBrowser(headers: BrowserRequest['headers']): boolean {
  const type = first(headers['content-type']);
  if (type !== undefined && (type.startsWith('application/json') || !SIMPLE_TYPES.has(type.split(';')[0]!.trim().toLowerCase()))) return true;
  if (headers.authorization !== undefined) return true;
  return Object.keys(headers).some((name) => name.startsWith('x-'));
}

/** Origin and Host name the same scheme-less authority (an absent port is the scheme's default). */
function sameOrigin(origin: string, host: string): boolean {
  const normalized = normalizeOrigin(origin);
  if (!normalized) return false;
  const url = new URL(normalized);
  const hostUrl = safeUrl(`${url.protocol}//${host}`);
  return hostUrl !== undefined && hostUrl.host === url.host;
}

/** `scheme://host[:port]` in URL's canonical form, or undefined for "null" and garbage. */
export function normalizeOrigin(origin: string): string | undefined {
  const url = safeUrl(origin.trim());
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return `${url.protocol}//${url.host}`;
}

/** The host part of a Host header, lower-case, without port or trailing dot; undefined when empty or malformed. */
function hostnameOf(host: string): string | undefined {
  const url = safeUrl(`http://${host.trim()}`);
  if (!url || url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
  return stripDot(url.hostname) || undefined;
}

function sameAddress(literal: string, local: string | undefined): boolean {
  if (!local) return false;
  const unmapped = local.startsWith('::ffff:') ? local.slice('::ffff:'.length) : local;
  return unmapped.toLowerCase() === literal.toLowerCase();
}

function safeUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** IP literals as URL writes them (IPv6 compressed), so a listed address matches a Host header. */
function canonicalName(name: string): string {
  if (isIP(name) !== 6) return name;
  return safeUrl(`http://[${name}]`)?.hostname.slice(1, -1) ?? name;
}

const stripDot = (name: string) => (name.endsWith('.') ? name.slice(0, -1) : name);
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
