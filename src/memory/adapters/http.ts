// One JSON-over-HTTP client for the memory daemons (hindsight, mem0), with the catalogue's
// error mapping (docs/memory.md): an upstream 4xx is memory.engine_error with that status
// mirrored, a 5xx is 502 memory.engine_upstream, no answer is 503 memory.engine_unreachable,
// a 2xx body that is not JSON is 502 memory.engine_shape. The bearer key is sent, never put
// in a message or a log line.
import type { Dispatcher } from 'undici';
import { MemoryError } from '../../protocol/errors.js';

/** memory.engine_error with the daemon's own 4xx as the HTTP status (the catalogue's one status is the nominal 400). */
export class MirroredEngineError extends MemoryError {
  constructor(private readonly upstreamStatus: number, message: string, details: Record<string, unknown>) {
    super('memory.engine_error', message, { ...details, upstream_status: upstreamStatus });
  }

  override get status(): number {
    return this.upstreamStatus;
  }
}

export interface JsonClientOptions {
  engine: string;
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`; never logged. */
  apiKey?: string;
  connectTimeoutMs: number;
  timeoutMs: number;
}

export interface JsonAnswer { status: number; body: unknown }

export class JsonHttpClient {
  private agent?: Promise<Dispatcher>;

  constructor(readonly options: JsonClientOptions) {}

  private dispatcher(): Promise<Dispatcher> {
    // undici is loaded on the first call (not at boot), with the connect timeout of the daemon.
    return (this.agent ??= import('undici').then(({ Agent }) => new Agent({ connect: { timeout: this.options.connectTimeoutMs }, keepAliveTimeout: 10_000 })));
  }

  /** The raw answer (any status); only a missing answer throws (memory.engine_unreachable). */
  async raw(method: string, path: string, body?: unknown, timeoutMs = this.options.timeoutMs): Promise<JsonAnswer> {
    const url = new URL(path, this.options.baseUrl);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let status: number;
    let text: string;
    try {
      const response = await (await this.dispatcher()).request({
        origin: url.origin, path: `${url.pathname}${url.search}`, method: method as Dispatcher.HttpMethod, headers,
        body: body === undefined ? undefined : JSON.stringify(body), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw new MemoryError('memory.engine_unreachable', `the ${this.options.engine} daemon at ${url.origin} did not answer ${method} ${url.pathname}: ${(error as Error).message}`, { engine: this.options.engine, url: url.origin });
    }
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // left as text: a 2xx that needed JSON is the caller's shape error
    }
    return { status, body: parsed };
  }

  /** A 2xx JSON answer, or the mapped error. */
  async json(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<unknown> {
    const answer = await this.raw(method, path, body, timeoutMs);
    throwForStatus(this.options.engine, method, path, answer);
    if (typeof answer.body === 'string') throw shapeError(this.options.engine, path, 'the answer is not JSON');
    return answer.body;
  }
}

function upstreamMessage(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  const b = body as { detail?: unknown; error?: unknown; message?: unknown } | null;
  const detail = b?.detail ?? (b?.error as { message?: unknown } | undefined)?.message ?? b?.error ?? b?.message;
  return (typeof detail === 'string' ? detail : JSON.stringify(detail ?? body ?? '')).slice(0, 300);
}

/** A non-2xx answer as the catalogue's error. */
export function throwForStatus(engine: string, method: string, path: string, answer: JsonAnswer): void {
  if (answer.status >= 200 && answer.status < 300) return;
  const where = `${method} ${path.split('?')[0]}`;
  const message = `the ${engine} daemon answered ${answer.status} to ${where}: ${upstreamMessage(answer.body)}`;
  if (answer.status >= 400 && answer.status < 500) throw new MirroredEngineError(answer.status, message, { engine, path: where });
  throw new MemoryError('memory.engine_upstream', message, { engine, path: where, upstream_status: answer.status });
}

export function shapeError(engine: string, path: string, what: string): MemoryError {
  return new MemoryError('memory.engine_shape', `the ${engine} daemon's answer to ${path.split('?')[0]} cannot be read: ${what}`, { engine, path: path.split('?')[0] });
}
