import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../protocol/errors.js';
import { ERROR_BODY_MAX_BYTES, errorAnswerFrom, readErrorBody, TEXT_DETAIL_MAX, TEXT_MESSAGE_MAX, upstreamCode, type ErrorBody } from './error-answer.js';

const body = (status: number, text: string, contentType: string | undefined = 'application/json', over: Partial<ErrorBody> = {}): ErrorBody =>
  ({ status, contentType, retryAfter: undefined, bytes: Buffer.from(text), truncated: false, ...over });

describe('upstreamCode', () => {
  it('has a code per common status and one per class for the rest, each in the catalogue', () => {
    const statuses = [400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 500, 501, 502, 503, 504, 599];
    const codes = statuses.map(upstreamCode);
    expect(codes).toEqual([
      'upstream.bad_request', 'upstream.unauthorized', 'upstream.forbidden', 'upstream.not_found', 'upstream.client_error', 'upstream.client_error',
      'upstream.too_large', 'upstream.client_error', 'upstream.unprocessable', 'upstream.rate_limited',
      'upstream.error', 'upstream.error', 'upstream.error', 'upstream.unavailable', 'upstream.error', 'upstream.error',
    ]);
    // A code with a status of its own is catalogued with exactly that status; a class code with the class's first.
    statuses.forEach((status, i) => expect(Math.floor(ERROR_CODES[codes[i]!].status / 100)).toBe(Math.floor(status / 100)));
    for (const [status, code] of [[400, 'upstream.bad_request'], [401, 'upstream.unauthorized'], [429, 'upstream.rate_limited'], [503, 'upstream.unavailable']] as const) {
      expect(ERROR_CODES[code].status).toBe(status);
    }
  });
});

describe('errorAnswerFrom', () => {
  it('an OpenAI error: the engine message, the body under details.upstream, the status kept', () => {
    const original = { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } };
    const answer = errorAnswerFrom(body(401, JSON.stringify(original), 'application/json', { retryAfter: '3' }), { upstream_name: 'far' });
    expect(answer).toEqual({
      status: 401,
      headers: { 'retry-after': '3' },
      envelope: { error: { code: 'upstream.unauthorized', message: 'bad key', details: { status: 401, upstream_name: 'far', upstream: original } } },
    });
  });

  it("llama-server's numeric-code error and other JSON shapes", () => {
    const llama = { error: { code: 400, message: "'messages' must be an array", type: 'invalid_request_error' } };
    expect(errorAnswerFrom(body(400, JSON.stringify(llama)), { slot: 'chat' }).envelope).toEqual({
      error: { code: 'upstream.bad_request', message: "'messages' must be an array", details: { status: 400, slot: 'chat', upstream: llama } },
    });
    const message = (text: string, status = 400) => errorAnswerFrom(body(status, text), { slot: 's' }).envelope.error.message;
    expect(message('{"error":"plain string"}')).toBe('plain string');
    expect(message('{"message":"top-level"}')).toBe('top-level');
    expect(message('{"detail":"fastapi"}', 422)).toBe('fastapi');
    expect(message('{"detail":[{"loc":["body","x"],"msg":"field required"}]}', 422)).toBe('[{"loc":["body","x"],"msg":"field required"}]');
    expect(message('{"nothing":"useful"}', 418)).toBe('the engine of slot s answered 418');
    expect(errorAnswerFrom(body(418, '{}'), { slot: 's' }).envelope.error.code).toBe('upstream.client_error');
  });

  it('a catalogue envelope (the built-in engine, another svc) is kept as it is', () => {
    const envelope = { error: { code: 'request.invalid', message: "'n' must be an integer", details: { type: 'invalid_request_error' } } };
    expect(errorAnswerFrom(body(400, JSON.stringify(envelope)), { slot: 'chat' })).toEqual({ status: 400, headers: {}, envelope });
    // A string code that is not svc's is rewritten.
    const foreign = { error: { code: 'rate_limit', message: 'slow down', details: {} } };
    expect(errorAnswerFrom(body(429, JSON.stringify(foreign)), { slot: 'chat' }).envelope.error).toMatchObject({ code: 'upstream.rate_limited', message: 'slow down', details: { upstream: foreign } });
  });

  it('an HTML page: tags stripped from the message, the text truncated in details', () => {
    const page = `<html><head><title>502 Bad Gateway</title></head><body><h1>Bad   Gateway</h1>${'x'.repeat(TEXT_DETAIL_MAX)}</body></html>`;
    const answer = errorAnswerFrom(body(502, page, 'text/html'), { upstream_name: 'far' });
    expect(answer.status).toBe(502);
    const { code, message, details } = answer.envelope.error;
    expect(code).toBe('upstream.error');
    expect(message.startsWith('502 Bad Gateway Bad Gateway x')).toBe(true);
    expect(message.length).toBe(TEXT_MESSAGE_MAX);
    expect(details).toMatchObject({ status: 502, upstream_name: 'far', content_type: 'text/html', truncated: true });
    expect(details.upstream).toBe(page.slice(0, TEXT_DETAIL_MAX));
  });

  it('an empty body says who answered what; a truncated JSON body is kept as text', () => {
    expect(errorAnswerFrom(body(500, '', undefined), { upstream_name: 'far' }).envelope.error).toMatchObject({ code: 'upstream.error', message: 'the upstream far answered 500', details: { upstream: '', truncated: false } });
    const cut = errorAnswerFrom(body(400, '{"error":{"message":"long', 'application/json', { truncated: true }), { slot: 'chat' });
    expect(cut.envelope.error).toMatchObject({ message: '{"error":{"message":"long', details: { upstream: '{"error":{"message":"long', truncated: true } });
  });
});

describe('readErrorBody', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function answer(status: number, bytes: number): Promise<string> {
    server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'text/plain', 'retry-after': '7' });
      // Written in pieces, more than the cap: the reader stops at the cap.
      const piece = 'y'.repeat(16 * 1024);
      for (let sent = 0; sent < bytes; sent += piece.length) res.write(piece.slice(0, Math.min(piece.length, bytes - sent)));
      res.end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('reads a small body whole, with its type and Retry-After', async () => {
    const read = await readErrorBody(await request(await answer(503, 10)));
    expect(read).toMatchObject({ status: 503, contentType: 'text/plain', retryAfter: '7', truncated: false });
    expect(read.bytes.toString()).toBe('y'.repeat(10));
  });

  it('reads at most ERROR_BODY_MAX_BYTES of a large one and says it was cut', async () => {
    const read = await readErrorBody(await request(await answer(500, 4 * ERROR_BODY_MAX_BYTES)));
    expect(read.truncated).toBe(true);
    expect(read.bytes.length).toBe(ERROR_BODY_MAX_BYTES);
  });
});
