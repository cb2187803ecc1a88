// HTTP plumbing of the built-in engine: OpenAI-style errors shaped like llama-server's
// ({"error":{"code":400,"message":...,"type":"invalid_request_error"}}), JSON bodies read with
// a size limit, and server-sent events. The engine speaks llama-server's dialect so the
// gateway treats both engines alike; these bodies are relayed to clients byte for byte.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A failure the client is told about; `extra` fields sit beside code/message/type. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly type: string, message: string, readonly extra: Record<string, unknown> = {}) {
    super(message);
  }

  toJSON(): { error: Record<string, unknown> } {
    return { error: { code: this.status, message: this.message, type: this.type, ...this.extra } };
  }
}

export const invalidRequest = (message: string, extra?: Record<string, unknown>) => new ApiError(400, 'invalid_request_error', message, extra);
export const notSupported = (message: string) => new ApiError(501, 'not_supported_error', message);
export const notFound = () => new ApiError(404, 'not_found_error', 'File Not Found');
export const unavailable = (message: string) => new ApiError(503, 'unavailable_error', message);
export const serverError = (message: string) => new ApiError(500, 'server_error', message);

/** Bodies beyond this are refused: prompts are text, and 32 MiB of text is a lot of tokens. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status, error);
}

/** The request body as a JSON object; invalid JSON or another value is a 400. */
export async function readJsonObject(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new ApiError(413, 'invalid_request_error', `the request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw invalidRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest('the request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** An SSE response: `data: <json>` events, then `data: [DONE]` (SPEC.md, Streaming). */
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
   * the error object (OpenAI clients raise it), and no [DONE], so nobody mistakes it for a
   * finished answer.
   */
  fail(error: ApiError): void {
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
