// What the dispatcher answers a request with (dispatcher.ts, dispatch()): a status, headers
// and a body, for any caller to use. The HTTP front door writes it to the client as it is
// (server/write-result.ts); an in-process caller (the omni loop, memory, the Responses
// translation) reads it. The body is whole bytes (an answer the gateway made itself, an
// error in the envelope) or a byte stream that produces the upstream's bytes as they come.
// Once a result is returned nothing is thrown any more: a failure after the head is the
// stream's last event (an SSE error event; see forward.ts, sseErrorEvent).
import type { ErrorEnvelope } from '../protocol/errors.js';

export type ResultHeaders = Record<string, string | string[] | number>;

/**
 * A body that arrives over time. Iterating it is the one way every caller reads it;
 * `pipeTo`, where a body has it, is the same bytes written straight to a sink (the client's
 * socket) without a promise per chunk: the hot path's relay (docs/performance.md).
 */
export interface ByteStream extends AsyncIterable<Uint8Array> {
  pipeTo?(sink: ByteSink): Promise<void>;
}

/** What a body is piped into: the part of a Writable the relay uses. */
export interface ByteSink {
  readonly destroyed: boolean;
  write(chunk: Uint8Array | string): boolean;
  on(event: 'drain' | 'close', listener: () => void): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
}

export interface DispatchResult {
  status: number;
  headers: ResultHeaders;
  body: Uint8Array | string | ByteStream;
  /** For an error answer the gateway made (status >= 400, whole body): its envelope. */
  envelope?: ErrorEnvelope;
}

/** A result read whole: the parsed JSON answer (or null when it is none), for callers that asked for one. */
export interface JsonResult {
  status: number;
  headers: ResultHeaders;
  body: unknown;
  envelope?: ErrorEnvelope;
}

/** Whether a body is still to come (a stream) rather than whole. */
export const isStream = (body: DispatchResult['body']): body is ByteStream => typeof body !== 'string' && !(body instanceof Uint8Array);

/** A JSON answer the gateway gives itself, with its length. */
export function jsonResult(status: number, value: unknown, headers: ResultHeaders = {}): DispatchResult {
  const text = JSON.stringify(value);
  return { status, headers: { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) }, body: text };
}

/** Most bytes readBody keeps: an answer larger than this is cut off rather than held in memory. */
export const READ_MAX_BYTES = 64 * 1024 * 1024;

/** The whole body; a stream is read to its end (or to READ_MAX_BYTES, then dropped unread). */
export async function readBody(body: DispatchResult['body']): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > READ_MAX_BYTES) break; // leaving the loop closes the stream
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(parts);
}

/** The result with its body read and parsed as JSON (null when it is not JSON). */
export async function readJson(result: DispatchResult): Promise<JsonResult> {
  const text = (await readBody(result.body)).toString('utf8');
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON: null, the status says what happened */ }
  return { status: result.status, headers: result.headers, body, ...(result.envelope && { envelope: result.envelope }) };
}

/** The Content-Type of a result, as one string. */
export function contentTypeOf(headers: ResultHeaders): string {
  const type = headers['content-type'];
  return Array.isArray(type) ? type.join(', ') : String(type ?? '');
}

/** A sink that is already gone: piping into it ends a body at once, as a client that left. */
const GONE: ByteSink = { destroyed: true, write: () => false, on: () => undefined, once: () => undefined };

/** Let go of a result nobody will read: its upstream is closed and its slot released. */
export async function discard(body: DispatchResult['body']): Promise<void> {
  if (!isStream(body)) return;
  if (body.pipeTo) return body.pipeTo(GONE);
  for await (const _ of body) break;
}
