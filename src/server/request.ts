// Reading requests, shared by every route module: who made it (for the activity log), its
// JSON body as an object, and its query flags. Kept apart from app.ts so that route modules
// never import the module that imports them.
import type { FastifyRequest } from 'fastify';
import { performance } from 'node:perf_hooks';
import { ANONYMOUS, type Identity } from '../auth/identity.js';
import { RequestError } from '../protocol/errors.js';

const ARRIVED = Symbol('svc.arrivedAt');
const IDENTITY = Symbol('svc.identity');

/** Who the guard found the caller to be (app.ts, onRequest). */
export function setIdentity(request: FastifyRequest, identity: Identity): void {
  (request as unknown as Record<symbol, Identity>)[IDENTITY] = identity;
}

/** The caller's identity; anonymous for a request the guard did not see (app.inject of a 404). */
export function identityOf(request: FastifyRequest): Identity {
  return (request as unknown as Record<symbol, Identity | undefined>)[IDENTITY] ?? ANONYMOUS;
}

/** Stamp when a request arrived (app.ts, onRequest): the start of Server-Timing's svc;dur. */
export function markArrival(request: FastifyRequest): void {
  (request as unknown as Record<symbol, number>)[ARRIVED] = performance.now();
}

/** When the request arrived (performance.now()); now when it was never stamped. */
export function arrivalOf(request: FastifyRequest): number {
  return (request as unknown as Record<symbol, number | undefined>)[ARRIVED] ?? performance.now();
}

/** What an X-Svc-Actor header may say at all. */
const ACTOR_HEADER = /^[a-z0-9:_.-]{1,64}$/i;
/** What an unverified client may call itself: a tool's name, never `token:`/`user:` (no `:`). */
const TOOL_NAME = /^[a-z0-9_.-]{1,32}$/i;
/** Actors svc itself writes, which no client may claim. */
const RESERVED_ACTORS = new Set(['system']);

/**
 * Who made a request, for the activity log, which no client can lie to (issue 22). A token is
 * `token:<label>` whatever it sends. The proxy (its secret verified) speaks for its user: its
 * X-Svc-Actor when it sends one (Caddy strips inbound copies), else `user:<label>`. Anyone
 * else is anonymous: its X-Svc-Actor counts only as a tool's name (the CLI sends "cli"),
 * else "api".
 */
export function actorOf(request: FastifyRequest): string {
  const identity = identityOf(request);
  if (identity.kind === 'token') return `token:${identity.label}`;
  const header = request.headers['x-svc-actor'];
  const claimed = typeof header === 'string' && ACTOR_HEADER.test(header) ? header : undefined;
  if (identity.kind === 'proxy') return claimed ?? `user:${identity.label}`;
  return claimed && TOOL_NAME.test(claimed) && !RESERVED_ACTORS.has(claimed.toLowerCase()) ? claimed : 'api';
}

/** A JSON body that must be an object. */
export function objectBody(request: FastifyRequest): Record<string, unknown> {
  return asObject(request.body);
}

/** A parsed body that must be an object (request.not_an_object otherwise). */
export function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notAnObject(body);
  return body as Record<string, unknown>;
}

export function notAnObject(body: unknown): RequestError {
  return new RequestError('request.not_an_object', 'The body must be a JSON object.', { got: Array.isArray(body) ? 'array' : typeof body });
}

export function queryProblem(path: string, message: string): never {
  throw new RequestError('request.invalid', `invalid query: ${path}: ${message}`, { problems: [{ path, message }] });
}

/** One query parameter; given twice is an error. */
export function queryValue(request: FastifyRequest, key: string): string | undefined {
  const value = (request.query as Record<string, unknown>)[key];
  if (Array.isArray(value)) return queryProblem(key, 'given more than once');
  return typeof value === 'string' ? value : undefined;
}

/** A flag: absent, false or 0 is false; present (empty), true or 1 is true; anything else is an error. */
export function booleanQuery(request: FastifyRequest, key: string): boolean {
  const value = queryValue(request, key);
  if (value === undefined || value === 'false' || value === '0') return false;
  if (value === '' || value === 'true' || value === '1') return true;
  return queryProblem(key, `expected true or false; got ${JSON.stringify(value)}`);
}
