// The error an answer carried, read back from what was written: the envelope of a status
// >= 400, or the error of a stream that broke off after it began (the SSE error event svc
// sends, `{"error":…}`, or a Responses `response.failed` event). The agent attribution puts
// it in the agent's activity row, so `svc agent run` can say why a run's requests failed
// (docs/agents.md). Only an agent's requests are tapped; every other answer is untouched.
import type { ServerResponse } from 'node:http';
import { upstreamCode } from '../dispatch/error-answer.js';

/** Last bytes of an answer kept: an error envelope or a stream's last events fit in it. */
export const TAIL_BYTES = 16 * 1024;
const MESSAGE_MAX = 500;

export interface AnswerError {
  code: string;
  message: string;
}

/** Keeps the last TAIL_BYTES an answer writes; `read()` at its end says what error it carried, or null. */
export function tapAnswer(res: ServerResponse): { read(): AnswerError | null } {
  let tail = Buffer.alloc(0);
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    tail = Buffer.concat([tail, bytes]);
    if (tail.length > TAIL_BYTES) tail = tail.subarray(tail.length - TAIL_BYTES);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    keep(chunk, rest[0]);
    return end(chunk, ...rest);
  }) as ServerResponse['end'];
  return { read: () => answerError(res.statusCode, tail.toString('utf8')) };
}

/** The error in an answer's last bytes: the whole body's envelope when the status says failure, else a stream's last error event. */
export function answerError(status: number, tail: string): AnswerError | null {
  // A body that is not the envelope (it always is, from svc) gets the code svc gives such an upstream answer.
  if (status >= 400) return errorOf(parse(tail.slice(Math.max(0, tail.indexOf('{'))))) ?? { code: upstreamCode(status), message: oneLine(tail) || `status ${status}` };
  let found: AnswerError | null = null;
  for (const line of tail.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = parse(line.slice('data: '.length));
    found = errorOf(event) ?? errorOf((event as { response?: unknown } | undefined)?.response) ?? found;
  }
  return found;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorOf(value: unknown): AnswerError | null {
  const error = (value as { error?: unknown } | undefined)?.error;
  if (!error || typeof error !== 'object') return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string' && code === undefined) return null;
  return { code: typeof code === 'string' || typeof code === 'number' ? String(code) : 'error', message: oneLine(typeof message === 'string' ? message : '') };
}

const oneLine = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line;
};
