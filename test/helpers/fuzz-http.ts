// The fuzzer's wire and its verdicts: each request of a plan (fuzz-cases.ts) goes over real
// HTTP (node:http, or raw bytes over node:net for malformed requests), and each answer is
// held to what every svc answer keeps: no internal error, every error the envelope
// {error:{code,message,details}} with a code from the catalogue, no answer past a bound, the
// gateway alive after every batch (docs/errors.md).
import { request } from 'node:http';
import { connect } from 'node:net';
import { ERROR_CODES } from '../../src/protocol/errors.js';
import type { FuzzRequest } from './fuzz-cases.js';

/** The largest error answer: the first problems and a count, each echo clipped (docs/errors.md, "Bounded answers"). */
export const MAX_ERROR_BYTES = 16 * 1024;
/** The largest answer of any kind (the dashboard's biggest file, the settings schema, stay far below). */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** How long one request may go unanswered before it is reported as never answered (a hang guard, not a speed claim). */
const NO_ANSWER_MS = 180_000;

export interface FuzzAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The answer went past MAX_ANSWER_BYTES (it was cut off there). */
  over: boolean;
}

type Outcome = FuzzAnswer | 'closed' | 'hung';

function viaHttp(port: number, fuzz: FuzzRequest, extra: Record<string, string>): Promise<Outcome> {
  const headers: Record<string, string> = { ...fuzz.headers, ...extra };
  if (fuzz.body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] = String(fuzz.body.length);
  return new Promise((done) => {
    const req = request({ host: '127.0.0.1', port, method: fuzz.method, path: fuzz.path, headers, agent: false }, (res) => {
      // A stream never ends: its status line and headers are its answer.
      if (String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0), over: false });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = (over: boolean) => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), over });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) {
          finish(true);
          req.destroy();
        }
      });
      res.on('end', () => finish(false));
      res.on('error', () => finish(false));
    });
    req.setTimeout(NO_ANSWER_MS, () => {
      req.destroy();
      done('hung');
    });
    req.on('error', () => done('closed'));
    req.end(fuzz.body);
  });
}

/** One answer parsed off a socket's bytes (status line, headers, a body by length or chunks). */
function parseRaw(bytes: Buffer): FuzzAnswer | 'closed' {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return 'closed';
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = lineEnd < 0 ? 0 : parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    body = body.subarray(0, Number(headers['content-length']));
  }
  return { status, headers, body, over: false };
}

function viaSocket(port: number, fuzz: FuzzRequest): Promise<Outcome> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let size = 0;
    socket.setTimeout(NO_ANSWER_MS, () => {
      socket.destroy();
      done('hung');
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) socket.destroy();
    });
    socket.on('close', () => done(parseRaw(Buffer.concat(chunks))));
    socket.on('error', () => undefined);
    socket.write(fuzz.raw!, () => {
      if (fuzz.breaksOff) socket.destroy();
    });
  });
}

export function sendFuzz(port: number, fuzz: FuzzRequest, extra: Record<string, string> = {}): Promise<Outcome> {
  return fuzz.raw ? viaSocket(port, fuzz) : viaHttp(port, fuzz, extra);
}

export interface Envelope {
  code: string;
  message: string;
  details: Record<string, unknown>;
}

/** The envelope of an answer, or why it is not one. */
export function envelopeOf(answer: FuzzAnswer): Envelope | string {
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    return `not JSON: ${JSON.stringify(answer.body.toString('utf8').slice(0, 80))}`;
  }
  const error = (json as { error?: unknown } | null)?.error as Partial<Envelope> | undefined;
  if (typeof error !== 'object' || error === null) {
    // What names the kind of body it is (Fastify's own has error, code and statusCode), not what varies with the request.
    const { error: name, code, statusCode } = (json ?? {}) as Record<string, unknown>;
    return `no error object: ${JSON.stringify({ error: name, code, statusCode })}`;
  }
  if (typeof error.code !== 'string') return `code is not a string: ${JSON.stringify(error).slice(0, 80)}`;
  if (!Object.hasOwn(ERROR_CODES, error.code)) return `code ${error.code} is not in the catalogue`;
  if (typeof error.message !== 'string') return `${error.code}: message is not a string`;
  if (typeof error.details !== 'object' || error.details === null || Array.isArray(error.details)) return `${error.code}: details is not an object`;
  return error as Envelope;
}

/** The bundled MCP endpoints answer JSON-RPC errors, their protocol's (docs/errors.md). */
function isJsonRpcError(fuzz: FuzzRequest, answer: FuzzAnswer): boolean {
  if (!fuzz.path.startsWith('/mcp/')) return false;
  try {
    const json = JSON.parse(answer.body.toString('utf8')) as { jsonrpc?: unknown; error?: { code?: unknown } };
    return json.jsonrpc === '2.0' && typeof json.error?.code === 'number';
  } catch {
    return false;
  }
}

/** What is wrong with the answer to `fuzz`: nothing, or one line saying what. */
export function verdict(fuzz: FuzzRequest, outcome: Outcome): { problem?: string; status: number; code?: string } {
  if (outcome === 'hung') return { status: 0, problem: `no answer in ${NO_ANSWER_MS / 1000} s` };
  if (outcome === 'closed') return fuzz.breaksOff ? { status: 0 } : { status: 0, problem: 'the connection closed without an answer' };
  const { status, body, over } = outcome;
  if (over) return { status, problem: `an answer over ${MAX_ANSWER_BYTES} bytes` };
  if (status < 400) return { status };
  if (status >= 400 && body.length > MAX_ERROR_BYTES) return { status, problem: `an error answer of ${body.length} bytes (bound ${MAX_ERROR_BYTES})` };
  if (fuzz.method === 'HEAD') return { status };
  if (isJsonRpcError(fuzz, outcome)) return { status, code: 'json-rpc' };
  const envelope = envelopeOf(outcome);
  if (typeof envelope === 'string') return { status, problem: `not the error envelope (${envelope})` };
  if (envelope.code === 'system.internal') return { status, code: envelope.code, problem: 'an internal error' };
  return { status, code: envelope.code };
}

export interface FuzzRun {
  sent: number;
  /** One line per distinct failure (kind, route, status, code), with how often and one path. */
  failures: string[];
  /** Answers by status, for the report. */
  statuses: Record<number, number>;
}

export interface RunOptions {
  /** Requests in flight at once. */
  concurrency?: number;
  /** Requests between two health checks. */
  batch?: number;
  /** Headers for the i-th request (a caller's token), and what else its answer must hold. */
  caller?: (index: number, fuzz: FuzzRequest) => { headers: Record<string, string>; check?: (fuzz: FuzzRequest, status: number, code: string | undefined) => string | undefined };
}

/**
 * Send every request of `plan` to the gateway on `port`, `concurrency` at a time, a health
 * check (GET /api/status) after each batch; stops at the first failed health check.
 */
export async function runFuzz(port: number, plan: readonly FuzzRequest[], options: RunOptions = {}): Promise<FuzzRun> {
  const { concurrency = 4, batch = 40 } = options;
  const seen = new Map<string, { count: number; examples: string[] }>();
  const statuses: Record<number, number> = {};
  // Failures of one kind are one line, whichever routes and inputs met them (a few of them named).
  const fail = (fuzz: FuzzRequest, status: number, code: string | undefined, problem: string) => {
    const key = `${problem} -> ${status} ${code ?? ''}`.trim();
    const entry = seen.get(key) ?? { count: 0, examples: [] };
    entry.count += 1;
    if (entry.examples.length < 3) entry.examples.push(`${fuzz.method} ${fuzz.path.slice(0, 100)} (${fuzz.kind}, route ${fuzz.route.method} ${fuzz.route.pattern})`);
    seen.set(key, entry);
  };
  let sent = 0;
  for (let start = 0; start < plan.length; start += batch) {
    const slice = plan.slice(start, start + batch);
    let next = 0;
    const worker = async () => {
      while (next < slice.length) {
        const index = start + next;
        const fuzz = slice[next++]!;
        const caller = options.caller?.(index, fuzz);
        const outcome = await sendFuzz(port, fuzz, caller?.headers);
        sent += 1;
        const { status, code, problem } = verdict(fuzz, outcome);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (problem) fail(fuzz, status, code, problem);
        const scope = caller?.check?.(fuzz, status, code);
        if (scope) fail(fuzz, status, code, scope);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const health = await sendFuzz(port, { route: { method: 'GET', pattern: '/api/status', access: 'public' }, kind: 'health', method: 'GET', path: '/api/status', headers: {} });
    if (health === 'closed' || health === 'hung' || health.status !== 200) {
      const last = slice.map((f) => `${f.method} ${f.path.slice(0, 80)} (${f.kind})`).join('; ');
      return { sent, statuses, failures: [...lines(seen), `the gateway did not answer its health check after request ${start + slice.length}; the batch was: ${last}`] };
    }
  }
  return { sent, statuses, failures: lines(seen) };
}

function lines(seen: Map<string, { count: number; examples: string[] }>): string[] {
  return [...seen].sort(([, a], [, b]) => b.count - a.count).map(([key, { count, examples }]) => `${count} x ${key}; e.g. ${examples.join(', ')}`);
}
