// The fuzzer's requests (test/fuzz.test.ts, bench/fuzz.mjs): for every route of the access
// table, hostile variations of what a client can send, drawn from a seeded generator so a
// run is repeated exactly by its seed. The routes come from ROUTE_ACCESS_TABLE, never from a
// list kept here, so a route added tomorrow is fuzzed by default.
import { createPrng } from '../../src/engines/gguf/prng.js';
import { ROUTE_ACCESS_TABLE, type RouteAccess } from '../../src/protocol/access.js';

export interface Route {
  /** The table's method; "*" is any. */
  method: string;
  pattern: string;
  access: RouteAccess;
}

export const ROUTES: readonly Route[] = Object.entries(ROUTE_ACCESS_TABLE).map(([key, access]) => {
  const [method, pattern] = key.split(' ') as [string, string];
  return { method, pattern, access };
});

export interface FuzzRequest {
  route: Route;
  /** Which variation this is, for the report ("body:deep-proto", "param:constructor", …). */
  kind: string;
  method: string;
  /** The path and query as sent (already encoded). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Sent as these bytes over a socket instead (malformed HTTP). */
  raw?: Buffer;
  /** The client breaks off before the request is whole: no answer is due. */
  breaksOff?: boolean;
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Path parameter values: names Object.prototype has, traversal, encodings, NUL, length. */
const STABLE_PARAMS = ['nope', 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', 'prototype', 'x'.repeat(90), '%F0%9F%92%A9', "%27%3B%20DROP%20TABLE%20x%3B--", 'a:b', '0', '-1'];
/** Values that may route elsewhere or stop at the router: only where no scope is checked. */
const WILD_PARAMS = ['%2e%2e', '..', '..%2f..%2fetc%2fpasswd', '%00', 'a%00b', '%ZZ', '%', 'x'.repeat(150), 'x'.repeat(10_000), '%2F', '.', '~'];

const deep = (depth: number, key: string | null) => {
  const open = key === null ? '[' : `{"${key}":`;
  const close = key === null ? ']' : '}';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
};

/** Field names routes read (and a few they do not), for bodies that reach a handler's schema. */
const FIELDS = ['name', 'model', 'id', 'slug', 'ref', 'text', 'query', 'url', 'path', 'args', 'extra_args', 'server_extra_args', 'env', 'prompt', 'input', 'messages',
  'bank', 'dataset', 'tags', 'metadata', 'config', 'label', 'scope', 'profile', 'stack', 'slots', 'file', 'command', 'confirm', 'apply', 'force', 'version',
  'channel', 'sources', 'target', 'document_id', 'ids', 'spec', 'manifest', 'flags', 'port', 'provider', 'device', 'enabled', 'limit', 'max_tokens', 'stream'];

function hostileValue(random: Random, depth = 0): unknown {
  const roll = Math.floor(random() * 22);
  switch (roll) {
    case 0: return 'x'.repeat(100_000);
    case 1: return 'a\u0000b';
    case 2: return 'constructor';
    case 3: return '__proto__';
    case 4: return '../../../../etc/passwd';
    case 5: return -1;
    case 6: return 1e308;
    case 7: return Number.MAX_SAFE_INTEGER + 2;
    case 8: return null;
    case 9: return true;
    case 10: return [];
    case 11: return {};
    case 12: return depth < 2 ? [hostileValue(random, depth + 1), hostileValue(random, depth + 1)] : 'a';
    case 13: return depth < 2 ? { [pick(random, FIELDS)]: hostileValue(random, depth + 1) } : 0;
    case 14: return '\ud800';
    case 15: return '--model /etc/passwd --log-file /tmp/x';
    case 16: return 'http://127.0.0.1:1/';
    case 17: return "'; DROP TABLE memory_items; --";
    case 18: return { constructor: { prototype: { polluted: true } } };
    case 19: return Array.from({ length: 2_000 }, (_, i) => i);
    case 20: return '';
    default: return 'nope';
  }
}

function fieldsBody(random: Random): string {
  const body: Record<string, unknown> = {};
  const count = 1 + Math.floor(random() * 4);
  for (let i = 0; i < count; i++) body[pick(random, FIELDS)] = hostileValue(random);
  return JSON.stringify(body);
}

const manyKeys = (count: number) => JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`unknown_${i}`, i])));

/** A JSON body and what it is; `json: false` is sent with a JSON type yet is not JSON. */
const BODIES: ReadonlyArray<readonly [string, number, (random: Random) => string]> = [
  // [kind, weight, text]
  ['fields', 30, fieldsBody],
  ['empty-object', 4, () => '{}'],
  ['deep-plain', 2, () => deep(30_000, 'a')],
  ['deep-proto', 2, () => deep(30_000, '__proto__')],
  ['deep-constructor', 2, () => deep(30_000, 'constructor')],
  ['deep-array', 2, () => deep(30_000, null)],
  ['deep-129', 2, () => deep(129, 'a')],
  ['proto-key', 3, () => '{"__proto__":{"polluted":true},"name":"x"}'],
  ['constructor-prototype', 2, () => '{"constructor":{"prototype":{"polluted":true}}}'],
  ['many-keys', 1, () => manyKeys(20_000)],
  ['long-key', 2, () => JSON.stringify({ ['k'.repeat(100_000)]: 1 })],
  ['long-string', 2, () => JSON.stringify('s'.repeat(1_000_000))],
  ['nul', 4, () => JSON.stringify({ name: 'a\u0000b', text: 'x\u0000', ['k\u0000']: 1 })],
  ['wrong-type', 4, (random) => pick(random, ['[]', '"x"', '1', 'null', 'true', '[{}]'])],
  ['not-json', 4, (random) => pick(random, ['{', '{"a":}', '{"a":1,}', "{'a':1}", 'NaN', '\u0000', '{"a":"\\x"}', '\ufeff{}'])],
  ['truncated', 3, (random) => { const text = fieldsBody(random); return text.slice(0, Math.max(1, Math.floor(text.length * random()))); }],
];
const BODY_WEIGHT = BODIES.reduce((sum, [, weight]) => sum + weight, 0);

function jsonBody(random: Random): [string, string] {
  let roll = random() * BODY_WEIGHT;
  for (const [kind, weight, make] of BODIES) {
    roll -= weight;
    if (roll < 0) return [kind, make(random)];
  }
  return ['empty-object', '{}'];
}

const ODD_TYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'multipart/form-data', 'application/json; charset=utf-16',
  'APPLICATION/JSON', 'application/json-patch+json', 'application/x-ndjson', 'application/json, text/plain', '', 'application/octet-stream'];
const ODD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const HOSTILE_QUERIES = ['?limit=-1', '?limit=1&limit=2', '?cursor=%00', '?x[a]=1&x[b]=2', '?limit=99999999999999999999', `?q=${'q'.repeat(5_000)}`, '?=&&=', '?keys=__proto__,constructor', '?confirm=constructor'];

/** The pattern with each parameter (":name", "*") replaced. */
function concrete(pattern: string, value: () => string): string {
  return pattern.replace(/:[a-z]+|\*/g, () => value());
}

export interface CaseOptions {
  /** Only variations that reach the route the table names (auth mode checks its scope by it). */
  routeStable?: boolean;
}

/** One hostile request for `route`. */
export function fuzzRequest(route: Route, random: Random, options: CaseOptions = {}): FuzzRequest {
  const params = options.routeStable || random() < 0.6 ? STABLE_PARAMS : WILD_PARAMS;
  let paramKind = 'nope';
  const path = concrete(route.pattern, () => {
    const value = pick(random, params);
    paramKind = value.length > 20 ? `long${value.length}` : value;
    return value;
  });
  const tableMethod = route.method === '*' ? pick(random, ['GET', 'POST']) : route.method;
  const method = !options.routeStable && random() < 0.1 ? pick(random, ODD_METHODS) : tableMethod;
  const query = random() < 0.15 ? pick(random, HOSTILE_QUERIES) : '';
  const headers: Record<string, string> = {};
  const base = { route, method, path: `${path}${query}`, headers };
  if (!options.routeStable && random() < 0.06) return malformed(base, random);
  const hasParam = path !== route.pattern;
  const kindOf = (what: string) => (hasParam ? `${what} param:${paramKind}` : what);
  if (method === 'GET' || method === 'HEAD' || (method === 'DELETE' && random() < 0.5)) return { ...base, kind: kindOf(query ? 'query' : 'no-body') };
  const [bodyKind, text] = jsonBody(random);
  let type = 'application/json';
  if (random() < 0.12) type = pick(random, ODD_TYPES);
  if (type) headers['content-type'] = type;
  // Tools send an X- header now and then; without one a non-JSON POST is refused as a form (docs/auth.md).
  if (random() < 0.5) headers['x-svc-actor'] = 'fuzz';
  if (random() < 0.1) headers['transfer-encoding'] = 'chunked';
  return { ...base, kind: kindOf(`body:${bodyKind}${type === 'application/json' ? '' : ` type:${type || 'none'}`}`), body: Buffer.from(text, 'utf8') };
}

/** Malformed HTTP, sent as bytes: framing, request line and headers no client library would write. */
function malformed(base: Omit<FuzzRequest, 'kind'>, random: Random): FuzzRequest {
  const line = `${base.method} ${base.path} HTTP/1.1\r\n`;
  const host = 'host: 127.0.0.1\r\nconnection: close\r\n';
  const variants: Array<[string, string, boolean?]> = [
    ['bad-chunk', `${line.replace(/^\S+/, 'POST')}${host}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
    ['cl-and-te', `${line.replace(/^\S+/, 'POST')}${host}content-type: application/json\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
    ['nul-in-path', `${base.method} /api/st\u0000atus HTTP/1.1\r\n${host}\r\n`],
    ['no-host', `${line}connection: close\r\n\r\n`],
    ['long-url', `${base.method} ${base.path}?${'u'.repeat(20_000)} HTTP/1.1\r\n${host}\r\n`],
    ['huge-header', `${line}${host}x-big: ${'h'.repeat(20_000)}\r\n\r\n`],
    ['bad-method', `FUZZ ${base.path} HTTP/1.1\r\n${host}\r\n`],
    ['http-0.9', `GET ${base.path}\r\n\r\n`],
    ['bad-content-length', `${line.replace(/^\S+/, 'POST')}${host}content-type: application/json\r\ncontent-length: -5\r\n\r\n{}`],
    ['breaks-off', `${line.replace(/^\S+/, 'POST')}${host}content-type: application/json\r\nx-svc-actor: fuzz\r\ncontent-length: 1000\r\n\r\n{"name":`, true],
  ];
  const [kind, bytes, breaksOff] = pick(random, variants);
  return { ...base, kind: `raw:${kind}`, raw: Buffer.from(bytes, 'latin1'), ...(breaksOff && { breaksOff: true }) };
}

/**
 * A route with a parameter or a body takes three shares of the requests, a plain GET (whose
 * only inputs are its query, its method and its framing) one.
 */
const SHARES = ROUTES.flatMap((route) => Array.from({ length: route.method === 'GET' && !/[:*]/.test(route.pattern) ? 1 : 3 }, () => route));

/**
 * `count` requests over every route, round-robin so each route gets its share whatever the
 * count (every route at least once from one cycle, ROUTES.length * 3 or so), the variation
 * of each drawn from `seed`.
 */
export function fuzzPlan(count: number, seed: number, options: CaseOptions = {}): FuzzRequest[] {
  // mulberry32, the same sequence on every machine.
  const random = createPrng(seed).uniform;
  return Array.from({ length: count }, (_, i) => fuzzRequest(SHARES[i % SHARES.length]!, random, options));
}

/** Requests for one pass over every route's shares. */
export const FULL_CYCLE = SHARES.length;
