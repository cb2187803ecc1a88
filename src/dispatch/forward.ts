// Forwarding to an engine or a remote upstream: one keep-alive undici Pool per origin, the
// response body relayed as it arrives, byte for byte, and the upstream request aborted when
// the client goes away (DESIGN.md, "Request hot path").
import type { ServerResponse } from 'node:http';
import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { DispatchError, type ErrorEnvelope, SvcError } from '../protocol/errors.js';

/** Hop-by-hop headers are the connection's, not the message's (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      // Generation can pause for long between tokens; time limits come per request.
      pool = new Pool(origin, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close().catch(() => undefined)));
    this.pools.clear();
  }
}

export interface UpstreamCall {
  /** e.g. http://127.0.0.1:8081 */
  origin: string;
  /** e.g. /v1/chat/completions (with any base path of the upstream included) */
  path: string;
  headers: Record<string, string>;
  body: string | Buffer;
  signal: AbortSignal;
  /** Longest wait for the response headers (prompt processing), and between body chunks. */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Names the target in errors: a slot or an upstream. */
  target: Record<string, unknown>;
}

export async function callUpstream(pools: UpstreamPools, call: UpstreamCall): Promise<Dispatcher.ResponseData> {
  try {
    return await pools.pool(call.origin).request({
      method: 'POST',
      path: call.path,
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      headersTimeout: call.headersTimeoutMs,
      bodyTimeout: call.bodyTimeoutMs,
    });
  } catch (error) {
    throw upstreamError(error, call.target);
  }
}

/** Map a transport failure to dispatch.upstream_timeout (504) or dispatch.upstream_unreachable (502). */
export function upstreamError(error: unknown, target: Record<string, unknown>): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError) {
    return new DispatchError('dispatch.upstream_timeout', `the upstream did not answer in time (${(error as Error).message})`, target);
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const reason = code ?? (error as Error)?.message ?? String(error);
  // llhttp's parse errors (HPE_*): the other end answered, but not with HTTP.
  if (error instanceof undiciErrors.HTTPParserError || code?.startsWith('HPE_')) {
    return new DispatchError('dispatch.upstream_bad_response', `the upstream answered something that is not HTTP (${reason})`, { ...target, reason });
  }
  return new DispatchError('dispatch.upstream_unreachable', `the upstream cannot be reached (${reason})`, { ...target, reason });
}

/**
 * A 2xx whose Content-Type the route cannot use (an HTML login page from a proxy in front of
 * an upstream, say) becomes 502 dispatch.upstream_bad_response instead of being relayed as if
 * it were the answer. Error statuses and a missing Content-Type pass: the body is the
 * upstream's own account of itself. The refused body is discarded, not read.
 */
export function checkContentType(upstream: Pick<Dispatcher.ResponseData, 'statusCode' | 'headers' | 'body'>, accepts: RegExp | undefined, target: Record<string, unknown>): void {
  const type = upstream.headers['content-type'];
  if (!accepts || upstream.statusCode < 200 || upstream.statusCode > 299 || type === undefined) return;
  const text = Array.isArray(type) ? type.join(', ') : type;
  if (accepts.test(text)) return;
  // Destroying an unread undici body emits 'error' (RequestAbortedError); without a listener
  // that would be an uncaught exception.
  upstream.body.on('error', () => undefined);
  upstream.body.destroy();
  throw new DispatchError('dispatch.upstream_bad_response', `the upstream answered ${upstream.statusCode} with Content-Type ${text}, which this route does not take`, { ...target, content_type: text, status: upstream.statusCode });
}

/** Copy the upstream's status and meaningful headers onto the client response. */
export function relayHead(res: ServerResponse, upstream: Pick<Dispatcher.ResponseData, 'statusCode' | 'headers'>): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = value;
  }
  headers['x-accel-buffering'] = 'no';
  res.writeHead(upstream.statusCode, headers);
  res.flushHeaders();
}

/** Sees each relayed chunk (metrics counting on the side); it never changes a byte. */
export interface ChunkTap {
  chunk(chunk: Buffer | Uint8Array): void;
}

/**
 * Relay the body chunk by chunk, respecting back-pressure. Resolves when the body ended;
 * rejects (with the transport error) when the upstream broke off.
 */
export async function relayBody(res: ServerResponse, body: AsyncIterable<Buffer | Uint8Array>, tap?: ChunkTap): Promise<void> {
  for await (const chunk of body) {
    if (res.destroyed) return;
    tap?.chunk(chunk);
    if (!res.write(chunk)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve));
  }
}

/** The final SSE event sent when a stream breaks off part-way (SPEC.md, Events 1). */
export function sseErrorEvent(envelope: ErrorEnvelope): string {
  // The blank line first ends whatever event the upstream broke off in the middle of, so the
  // error arrives as an event of its own; after a complete event it is a no-op (SSE skips
  // empty events).
  return `\n\ndata: ${JSON.stringify(envelope)}\n\n`;
}
