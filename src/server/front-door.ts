// The HTTP server's request handler. A route that declares a direct handler (the /v1 JSON
// routes, the hot path) is answered here, off Fastify's per-request pipeline: its hooks,
// content-type parsing and request/reply decoration cost more than the forwarding itself
// (docs/performance.md). Every other request goes on to Fastify. There is still one route
// table (Fastify's: a direct route is registered there as well and indexed here as it is
// added, so 405s, route listings and app.inject see it), one admission check (admission.ts,
// where the auth guard goes) and one error renderer (errors.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteAccess } from '../protocol/access.js';
import type { Decision } from '../auth/guard.js';
import type { Identity } from '../auth/identity.js';
import { SvcError } from '../protocol/errors.js';
import type { Admission } from './admission.js';
import { bodyTooLarge, contentLengthMismatch, malformedRequest, renderError, unsupportedMediaType } from './errors.js';
import { serverTiming } from '../dispatch/server-timing.js';
import { parseJsonBody } from './json-body.js';
import { arrivalOf, asObject, identityOf, notAnObject } from './request.js';
import { crossOrigin } from './cors.js';

/** One request on a direct route, its body read and parsed once. */
export interface DirectRequest {
  req: IncomingMessage;
  res: ServerResponse;
  body: Record<string, unknown>;
  /** The bytes the body was parsed from (absent through app.inject): forwarded as they are when nothing in them changes. */
  raw?: Buffer;
  /** performance.now() when the request arrived: the start of Server-Timing's svc;dur. */
  arrivedAt: number;
  /** Who the guard found the caller to be (the omni loop offers tools by its scope); absent: anonymous. */
  identity?: Identity;
}

/** Answers a direct request; a rejection before anything was written is rendered by the error renderer. */
export type DirectHandler = (request: DirectRequest) => Promise<void>;

interface DirectRoute {
  access: RouteAccess;
  handler: DirectHandler;
}

type Next = (req: IncomingMessage, res: ServerResponse) => void;

export class FrontDoor {
  /** Direct routes by path; all of them are POST (a body to forward). */
  private readonly routes = new Map<string, DirectRoute>();

  constructor(
    private readonly admission: Admission,
    private readonly bodyLimit: number,
  ) {}

  add(method: string | string[], url: string, access: RouteAccess, handler: DirectHandler): void {
    if (method !== 'POST') throw new Error(`direct route ${String(method)} ${url}: only POST routes can be direct`);
    this.routes.set(url, { access, handler });
  }

  /** The server's request listener: a direct route is answered here, anything else by `next` (Fastify). */
  handle(req: IncomingMessage, res: ServerResponse, next: Next): void {
    if (req.headers.host === undefined && req.httpVersion === '1.1') return withoutHost(req, res);
    if (req.headers.origin !== undefined && crossOrigin(req, res, this.admission)) return;
    const route = req.method === 'POST' ? this.routes.get(routePath(req.url ?? '/')) : undefined;
    if (!route) return next(req, res);
    const arrivedAt = performance.now();
    const decision = this.admission.admit(route.access, req);
    // The body stays unread (paused) while a first-seen token is verified.
    if (decision instanceof Promise) {
      decision.then((settled) => this.admitted(req, res, route, settled, arrivedAt), (error: unknown) => fail(req, res, error, arrivedAt));
      return;
    }
    this.admitted(req, res, route, decision, arrivedAt);
  }

  private admitted(req: IncomingMessage, res: ServerResponse, route: DirectRoute, decision: Decision, arrivedAt: number): void {
    if (decision instanceof SvcError) return fail(req, res, decision, arrivedAt);
    const type = req.headers['content-type'];
    // No body at all (whatever Content-Type says: some clients send application/json with none).
    if (!hasBody(req)) {
      return fail(req, res, notAnObject(undefined), arrivedAt);
    }
    if (type === undefined || !isJson(type)) return fail(req, res, unsupportedMediaType(req as RequestLineOf), arrivedAt);
    this.readBody(req, res, route, arrivedAt, decision);
  }

  /** Read the body within the limit (as Fastify does: Content-Length first, then the bytes), parse it, run the route. */
  private readBody(req: IncomingMessage, res: ServerResponse, route: DirectRoute, arrivedAt: number, identity: Identity): void {
    const declared = Number(req.headers['content-length']);
    if (declared > this.bodyLimit) return fail(req, res, bodyTooLarge(), arrivedAt);
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > this.bodyLimit) {
        stopReading();
        return fail(req, res, bodyTooLarge(), arrivedAt);
      }
      chunks.push(chunk);
    };
    const onEnd = (error?: Error) => {
      stopReading();
      if (error) return void res.destroy(); // the client broke off its own request: nobody to answer, nothing to log (errors.ts, clientBrokeOff)
      if (!Number.isNaN(declared) && received !== declared) return fail(req, res, contentLengthMismatch(), arrivedAt);
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      let body: Record<string, unknown>;
      try {
        body = asObject(parseJsonBody(raw.toString('utf8')));
      } catch (parseError) {
        return fail(req, res, parseError, arrivedAt);
      }
      route.handler({ req, res, body, raw, arrivedAt, identity }).catch((handlerError: unknown) => fail(req, res, handlerError, arrivedAt));
    };
    const stopReading = () => req.off('data', onData).off('end', onEnd).off('error', onEnd);
    req.on('data', onData).on('end', onEnd).on('error', onEnd);
  }
}

type RequestLineOf = { method: string; url: string; headers: IncomingMessage['headers'] };

/** The path a route is looked up by: no query, no trailing slash (Fastify's ignoreTrailingSlash). */
function routePath(url: string): string {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** application/json, with any parameters (charset). */
function isJson(type: string): boolean {
  const semi = type.indexOf(';');
  return (semi >= 0 ? type.slice(0, semi) : type).trim().toLowerCase() === 'application/json';
}

/** Render a failure, unless the answer already began (then the handler ended it itself, or the client is gone). */
function fail(req: IncomingMessage, res: ServerResponse, error: unknown, arrivedAt: number): void {
  if (res.destroyed) return; // the client left: nobody to answer
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  const answer = renderError(error, req as RequestLineOf);
  answer.headers['server-timing'] = serverTiming(arrivedAt);
  res.writeHead(answer.status, answer.headers).end(answer.body);
}

/** RFC 9112: an HTTP/1.1 request must name its Host; one that does not is malformed, and its connection not kept. */
function withoutHost(req: IncomingMessage, res: ServerResponse): void {
  const answer = renderError(malformedRequest('an HTTP/1.1 request must carry a Host header'), req as RequestLineOf);
  res.writeHead(answer.status, { ...answer.headers, connection: 'close' }).end(answer.body);
}

/** Whether a request says it carries a body. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
}

/**
 * A direct route's handler as Fastify calls it (app.inject, which does not pass through the
 * server's request listener): the same handler, the same renderer for its failures.
 */
export function throughFastify(handler: DirectHandler): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  return async (request, reply) => {
    const arrivedAt = arrivalOf(request); // stamped by the onRequest hook (app.ts)
    const body = asObject(request.body); // thrown before the hijack: Fastify's error handler renders it
    reply.hijack();
    await handler({ req: request.raw, res: reply.raw, body, arrivedAt, identity: identityOf(request) }).catch((error: unknown) => fail(request.raw, reply.raw, error, arrivedAt));
  };
}
