// An engine's or remote upstream's error answer (status >= 400), made svc's envelope
// (every failure carries {error:{code,message,details}}; docs/errors.md,
// "Engine and upstream errors"). An answer that already is the envelope with a catalogue
// code (the built-in engine, another svc) is kept as it is; anything else gets the
// upstream.* code of its status, the engine's own message, and its body under
// details.upstream. The status is always the engine's. Only error answers are read, and at
// most ERROR_BODY_MAX_BYTES of them: 2xx bodies are relayed untouched (forward.ts).
import { type ErrorCode, type ErrorEnvelope, isCatalogueEnvelope } from '../protocol/errors.js';
import { withContextHint } from './context-hint.js';
import { type DispatchResult, jsonResult } from './result.js';
import { type ExchangeTiming, serverTiming } from './server-timing.js';

/** Most bytes of an error body read; the rest is discarded unread. */
export const ERROR_BODY_MAX_BYTES = 64 * 1024;
/** Longest message taken from the text of a body that is not JSON. */
export const TEXT_MESSAGE_MAX = 300;
/** Most characters of a non-JSON body kept in details.upstream. */
export const TEXT_DETAIL_MAX = 4096;

/** One code per status that has its own; the others fall in their class (upstreamCode). */
const STATUS_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'upstream.bad_request',
  401: 'upstream.unauthorized',
  403: 'upstream.forbidden',
  404: 'upstream.not_found',
  413: 'upstream.too_large',
  422: 'upstream.unprocessable',
  429: 'upstream.rate_limited',
  503: 'upstream.unavailable',
};

/** The code an upstream error status is reported under (status >= 400). */
export function upstreamCode(status: number): ErrorCode {
  return STATUS_CODES[status] ?? (status < 500 ? 'upstream.client_error' : 'upstream.error');
}

/** An error answer ready to send: the engine's status, the envelope, headers worth keeping. */
export interface ErrorAnswer {
  status: number;
  envelope: ErrorEnvelope;
  headers: Record<string, string>;
}

export interface ErrorBody {
  status: number;
  contentType: string | undefined;
  retryAfter: string | undefined;
  bytes: Buffer;
  /** The body was longer than what was read. */
  truncated: boolean;
}

/** Names the target in details: `{slot}` or `{upstream_name}`. */
export type ErrorTarget = { slot: string } | { upstream_name: string };

const oneLine = (text: string, max: number) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The engine's own message in a JSON error body, when it has one. */
function jsonMessage(json: unknown): string | undefined {
  if (typeof json === 'string') return json;
  if (typeof json !== 'object' || json === null) return undefined;
  const { error, message, detail } = json as { error?: unknown; message?: unknown; detail?: unknown };
  if (typeof error === 'string') return error;
  const nested = (error as { message?: unknown } | null | undefined)?.message;
  if (typeof nested === 'string') return nested;
  if (typeof message === 'string') return message;
  if (typeof detail === 'string') return detail;
  return detail === undefined ? undefined : oneLine(JSON.stringify(detail), TEXT_MESSAGE_MAX);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The envelope for an error body (pure; the reading is readErrorBody's). */
export function errorAnswerFrom(body: ErrorBody, target: ErrorTarget): ErrorAnswer {
  const headers: Record<string, string> = body.retryAfter === undefined ? {} : { 'retry-after': body.retryAfter };
  const text = body.bytes.toString('utf8');
  const json = body.truncated ? { ok: false as const } : parseJson(text);
  if (json.ok && isCatalogueEnvelope(json.value)) return { status: body.status, envelope: 'slot' in target ? withContextHint(json.value, target.slot) : json.value, headers };
  const fallback = `the ${'slot' in target ? `engine of slot ${target.slot}` : `upstream ${target.upstream_name}`} answered ${body.status}`;
  const details: Record<string, unknown> = { status: body.status, ...target };
  let message: string | undefined;
  if (json.ok) {
    message = jsonMessage(json.value);
    details.upstream = json.value;
  } else {
    const plain = /html/i.test(body.contentType ?? '') ? text.replace(/<[^>]*>/g, ' ') : text;
    message = oneLine(plain, TEXT_MESSAGE_MAX) || undefined;
    details.upstream = text.slice(0, TEXT_DETAIL_MAX);
    details.content_type = body.contentType ?? null;
    details.truncated = body.truncated || text.length > TEXT_DETAIL_MAX;
  }
  const envelope: ErrorEnvelope = { error: { code: upstreamCode(body.status), message: message || fallback, details } };
  return { status: body.status, envelope: 'slot' in target && json.ok ? withContextHint(envelope, target.slot, json.value) : envelope, headers };
}

const ignore = () => undefined;

/** Read at most ERROR_BODY_MAX_BYTES of an error answer; a body that breaks off keeps what came. */
export async function readErrorBody(upstream: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: AsyncIterable<Buffer | Uint8Array> & { destroy?: () => void; on?: (event: 'error', listener: () => void) => unknown } }): Promise<ErrorBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  // Leaving the loop early destroys the body, which then emits an abort error: nobody's.
  upstream.body.on?.('error', ignore);
  try {
    for await (const chunk of upstream.body) {
      const room = ERROR_BODY_MAX_BYTES - size;
      chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.byteLength, room)));
      size += Math.min(chunk.byteLength, room);
      if (chunk.byteLength > room) {
        truncated = true;
        break; // leaving the loop destroys the body: the rest is never read
      }
    }
  } catch {
    truncated = true;
  }
  const header = (name: string) => {
    const value = upstream.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  return { status: upstream.statusCode, contentType: header('content-type'), retryAfter: header('retry-after'), bytes: Buffer.concat(chunks, size), truncated };
}

/** Read an upstream's error answer and make it the envelope. */
export async function readErrorAnswer(upstream: Parameters<typeof readErrorBody>[0], target: ErrorTarget): Promise<ErrorAnswer> {
  return errorAnswerFrom(await readErrorBody(upstream), target);
}

/** An error answer as the dispatcher's result (result.ts), with Server-Timing when timed. */
export function errorResult(answer: ErrorAnswer, timing?: ExchangeTiming): DispatchResult {
  const result = jsonResult(answer.status, answer.envelope, answer.headers);
  if (timing) result.headers['server-timing'] = serverTiming(timing.arrivedAt, timing);
  result.envelope = answer.envelope;
  return result;
}
