// Forwarding to an engine or a remote upstream: one keep-alive undici Pool per origin, the
// response body relayed as it arrives, byte for byte, and the upstream request aborted when
// the client goes away (DESIGN.md, "Request hot path").
import type * as UndiciModule from 'undici';
import type { Dispatcher, Pool } from 'undici';
import { DispatchError, type ErrorEnvelope, SvcError } from '../protocol/errors.js';
import type { ClientGone } from './client-gone.js';
import type { ResultHeaders } from './result.js';
import { type ExchangeTiming, serverTiming } from './server-timing.js';

/** Hop-by-hop headers are the connection's, not the message's (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

type Undici = typeof UndiciModule;
let undici: Undici | undefined;
let loadingUndici: Promise<Undici> | undefined;

/**
 * undici, imported on first use (docs/performance.md: about 90 ms of module loading, kept
 * out of start-up); serve() asks for it as soon as the gateway listens, so the first request
 * rarely waits for it.
 */
export function loadUndici(): Promise<Undici> {
  return (loadingUndici ??= import('undici').then((module) => (undici = module)));
}

export class UpstreamPools {
  private readonly pools = new Map<string, Pool>();

  /** The origin's pool; undici must be loaded (callUpstream sees to it). */
  pool(origin: string, { Pool } = undici!): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      // Generation can pause for long between tokens; time limits come per request. No cap on
      // connections: one per request in flight, as a client calling the engine directly would
      // open, so long streams never queue behind each other here (docs/performance.md).
      pool = new Pool(origin, { connections: null, keepAliveTimeout: 30_000, pipelining: 1 });
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
  signal: AbortSignal | ClientGone;
  /** Longest wait for the response headers (prompt processing), and between body chunks. */
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Names the target in errors: a slot or an upstream. */
  target: Record<string, unknown>;
}

export async function callUpstream(pools: UpstreamPools, call: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const pool = pools.pool(call.origin, undici ?? (await loadUndici()));
  const send = () => pool.request({
    method: 'POST',
    path: call.path,
    headers: call.headers,
    body: call.body,
    signal: call.signal,
    headersTimeout: call.headersTimeoutMs,
    bodyTimeout: call.bodyTimeoutMs,
  });
  try {
    try {
      return await send();
    } catch (error) {
      // A kept-alive connection the engine closed while it sat in the pool (llama-server's
      // HTTP library may close one after a streamed answer) fails before any answer: the
      // request is sent once more on a fresh connection, as browsers do for a reused socket.
      if (!closedBeforeAnswer(error) || isAborted(call.signal)) throw error;
      return await send();
    }
  } catch (error) {
    throw upstreamError(error, call.target);
  }
}

/** The other end closed the connection before any byte of an answer (undici's SocketError, a reset). */
function closedBeforeAnswer(error: unknown): boolean {
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET';
}

const isAborted = (signal: UpstreamCall['signal']): boolean => (signal as { aborted?: boolean }).aborted === true;

/** Map a transport failure to dispatch.upstream_timeout (504) or dispatch.upstream_unreachable (502). */
export function upstreamError(error: unknown, target: Record<string, unknown>): SvcError {
  if (error instanceof SvcError) return error;
  // undici's errors exist only once undici is loaded; before that no error can be one of them.
  const undiciErrors = undici?.errors;
  if (undiciErrors && (error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError)) {
    return new DispatchError('dispatch.upstream_timeout', `the upstream did not answer in time (${(error as Error).message})`, target);
  }
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  const reason = code ?? (error as Error)?.message ?? String(error);
  // llhttp's parse errors (HPE_*): the other end answered, but not with HTTP.
  if ((undiciErrors && error instanceof undiciErrors.HTTPParserError) || code?.startsWith('HPE_')) {
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

/** The upstream's status line as the result's head: its meaningful headers, and svc's Server-Timing. */
export function relayedHeaders(upstream: Pick<Dispatcher.ResponseData, 'headers'>, timing?: ExchangeTiming): ResultHeaders {
  const headers: ResultHeaders = {};
  for (const name in upstream.headers) {
    const value = upstream.headers[name];
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    headers[name] = value;
  }
  headers['x-accel-buffering'] = 'no';
  // The upstream's own Server-Timing (if any) comes first; svc's entries follow it.
  if (timing) headers['server-timing'] = appendTiming(headers['server-timing'] as string | string[] | undefined, serverTiming(timing.arrivedAt, timing));
  return headers;
}

function appendTiming(upstream: string | string[] | undefined, own: string): string {
  if (upstream === undefined) return own;
  return `${Array.isArray(upstream) ? upstream.join(', ') : upstream}, ${own}`;
}

/** The final SSE event sent when a stream breaks off part-way (docs/errors.md). */
export function sseErrorEvent(envelope: ErrorEnvelope): string {
  // The blank line first ends whatever event the upstream broke off in the middle of, so the
  // error arrives as an event of its own; after a complete event it is a no-op (SSE skips
  // empty events).
  return `\n\ndata: ${JSON.stringify(envelope)}\n\n`;
}
