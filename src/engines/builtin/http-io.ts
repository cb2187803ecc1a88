// HTTP plumbing of the built-in engine: errors in svc's envelope
// ({"error":{"code":"request.invalid","message":...,"details":{"type":"invalid_request_error"}}},
// codes from the one catalogue, llama-server's OpenAI error type kept in details.type for
// clients that read it), JSON bodies read with a size limit, and server-sent events. The
// routes and success answers are llama-server's, so the gateway treats both engines alike;
// its error envelopes are relayed by the gateway as they are (src/dispatch/error-answer.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ErrorCode, type ErrorEnvelope, SvcError } from '../../protocol/errors.js';

/** A failure the built-in engine answers a request with: a catalogue code, its status, `type` and `extra` in details. */
export class BuiltinEngineError extends SvcError {
  constructor(code: ErrorCode, readonly type: string, message: string, readonly extra: Record<string, unknown> = {}) {
    super(code, message, { type, ...extra });
    this.name = 'BuiltinEngineError';
  }

  toJSON(): ErrorEnvelope {
    return this.toEnvelope();
  }
}

export const invalidRequest = (message: string, extra?: Record<string, unknown>) => new BuiltinEngineError('request.invalid', 'invalid_request_error', message, extra);
export const notSupported = (message: string) => new BuiltinEngineError('request.not_supported', 'not_supported_error', message);
export const notFound = (method: string, path: string) => new BuiltinEngineError('request.unknown_route', 'not_found_error', `No route ${method} ${path}`, { method, path });
/** llama-server's 503 while the model loads; the gateway's health probe reads only the status. */
export const loading = () => new BuiltinEngineError('slot.not_ready', 'unavailable_error', 'Loading model', { state: 'warming' });
export const serverError = (message: string) => new BuiltinEngineError('system.internal', 'server_error', message);

/** Bodies beyond this are refused: prompts are text, and 32 MiB of text is a lot of tokens. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: BuiltinEngineError): void {
  sendJson(res, error.status, error);
}

/** The request body as a JSON object; invalid JSON or another value is a 400. */
export async function readJsonObject(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BuiltinEngineError('request.too_large', 'invalid_request_error', `the request body is larger than ${limit} bytes`, { limit_bytes: limit });
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BuiltinEngineError('request.invalid_json', 'invalid_request_error', `the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
    throw new BuiltinEngineError('request.not_an_object', 'invalid_request_error', 'the request body must be a JSON object', { got });
  }
  return value as Record<string, unknown>;
}

/** An SSE response: `data: <json>` events, then `data: [DONE]` (OpenAI's streaming). */
export class SseWriter {
  constructor(private readonly res: ServerResponse) {}

  /** The response, for answers that are not streamed. */
  get response(): ServerResponse {
    return this.res;
  }

  get started(): boolean {
    return this.res.headersSent;
  }

  private start(): void {
    if (this.res.headersSent) return;
    this.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  }

  send(event: unknown): void {
    if (this.res.destroyed) return;
    this.start();
    this.res.write(`data: ${JSON.stringify(event)}\n\n`);
  }

  done(): void {
    if (this.res.destroyed) return;
    this.start();
    this.res.end('data: [DONE]\n\n');
  }

  /**
   * A failure: before the first event a plain JSON error; after it one `data:` event with
   * the envelope (docs/errors.md; OpenAI clients raise it), and no [DONE], so nobody
   * mistakes it for a finished answer.
   */
  fail(error: BuiltinEngineError): void {
    if (this.res.destroyed) return;
    if (!this.res.headersSent) return sendError(this.res, error);
    this.res.end(`data: ${JSON.stringify(error)}\n\n`);
  }
}

/**
 * An AbortSignal that fires when the client goes away before the response ended. Node emits
 * 'close' on the response both when it finished and when the socket closed early.
 */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
  });
  return controller.signal;
}
