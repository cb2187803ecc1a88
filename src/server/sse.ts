// Server-sent event streams the server writes itself (the event stream, a followed engine
// log, pull progress): count the stream against the cap on open streams (stream-limit.ts),
// take the response over from Fastify and send the head at once, with the headers that keep
// proxies from buffering it.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { AuthGuard } from '../auth/guard.js';
import type { StreamLimit } from './stream-limit.js';

export interface StreamAdmission {
  readonly streams: StreamLimit;
  readonly auth: { readonly guard: Pick<AuthGuard, 'clientOf'> };
}

/** The open stream; past the cap, throws system.too_many_streams before anything is sent. */
export function openEventStream(reply: FastifyReply, ctx: StreamAdmission): ServerResponse {
  const { headers, socket } = reply.request;
  const release = ctx.streams.admit(ctx.auth.guard.clientOf({ headers, peer: socket.remoteAddress }));
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // writeHead only queues the head until the first write, and a followed log with no lines
  // yet would otherwise leave its client waiting for the first keep-alive.
  raw.flushHeaders();
  raw.once('close', release);
  // A client gone while the handler awaited has already had its 'close'.
  if (raw.closed) release();
  return raw;
}

/** How often an idle stream the server writes itself gets a comment, so proxies and clients do not time it out. */
export const SSE_KEEPALIVE_MS = 15_000;

/**
 * Send `: keepalive` on `raw` every SSE_KEEPALIVE_MS (skipped while `paused()`, a client not
 * reading); the returned function stops it. The one keep-alive of the event stream, a
 * followed log and pull progress.
 */
export function keepAlive(raw: ServerResponse, paused: () => boolean = () => false): () => void {
  const timer = setInterval(() => {
    if (!paused() && !raw.writableEnded) raw.write(': keepalive\n\n');
  }, SSE_KEEPALIVE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
