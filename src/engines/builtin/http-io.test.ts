// The built-in engine's errors are svc's envelope with catalogue codes, over a real socket.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES, isCatalogueEnvelope } from '../../protocol/errors.js';
import { invalidRequest, loading, notFound, notSupported, readJsonObject, sendError, serverError, SseWriter, type BuiltinEngineError } from './http-io.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A real server whose handler is `handle`; returns its URL. */
async function serve(handle: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handle);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('BuiltinEngineError', () => {
  it('renders the envelope: a catalogue code, its status, the OpenAI type in details', () => {
    const errors: BuiltinEngineError[] = [invalidRequest("'n' must be an integer", { param: 'n' }), notSupported('no chat here'), notFound('GET', '/nope'), loading(), serverError('decode failed')];
    expect(errors.map((e) => [e.code, e.status])).toEqual([
      ['request.invalid', 400], ['request.not_supported', 501], ['request.unknown_route', 404], ['slot.not_ready', 503], ['system.internal', 500],
    ]);
    for (const error of errors) {
      const json: unknown = JSON.parse(JSON.stringify(error));
      expect(isCatalogueEnvelope(json)).toBe(true);
      expect(ERROR_CODES[error.code].status).toBe(error.status);
    }
    expect(invalidRequest("'n' must be an integer", { param: 'n' }).toJSON()).toEqual({
      error: { code: 'request.invalid', message: "'n' must be an integer", details: { type: 'invalid_request_error', param: 'n' } },
    });
  });
});

describe('reading bodies and failing', () => {
  it('invalid JSON, a non-object and a body over the limit get their own codes', async () => {
    const url = await serve((req, res) => {
      readJsonObject(req, 64).then(() => res.end('{}'), (error: BuiltinEngineError) => sendError(res, error));
    });
    const post = async (body: string) => {
      const response = await fetch(url, { method: 'POST', body });
      return { status: response.status, json: await response.json() };
    };
    expect(await post('{"a":')).toMatchObject({ status: 400, json: { error: { code: 'request.invalid_json', details: { type: 'invalid_request_error' } } } });
    expect(await post('[1]')).toMatchObject({ status: 400, json: { error: { code: 'request.not_an_object', details: { got: 'array' } } } });
    expect(await post(JSON.stringify({ text: 'x'.repeat(100) }))).toMatchObject({ status: 413, json: { error: { code: 'request.too_large', details: { limit_bytes: 64 } } } });
  });

  it('a stream that fails after its first event ends with one envelope event and no [DONE]', async () => {
    const url = await serve((_req, res) => {
      const sse = new SseWriter(res);
      sse.send({ n: 1 });
      sse.fail(serverError('the context was disposed'));
    });
    const text = await (await fetch(url)).text();
    expect(text).toBe(`data: {"n":1}\n\ndata: ${JSON.stringify({ error: { code: 'system.internal', message: 'the context was disposed', details: { type: 'server_error' } } })}\n\n`);
  });
});
