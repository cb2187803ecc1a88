// Requests no HTTP client would send, on a raw socket (docs/errors.md, "Malformed requests"):
// what Node's HTTP parser refuses (a bad chunk, Content-Length with Transfer-Encoding, a NUL
// in the path, headers or a URL over 16 KiB, no Host) and what the router refuses (%ZZ in a
// path, a 10 KB name) are answered in the envelope, with a code of the catalogue and its
// status, the parser's with Connection: close; the gateway goes on serving. A client that
// drops its connection mid-body is no internal error: nothing in the log, nothing in activity.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/protocol/errors.js';
import { api, type Gateway, startGateway, tempHome } from './helpers/gateway.js';
import { type WireAnswer, wireRequest } from './helpers/raw-http.js';

let gateway: Gateway;
const host = () => `Host: 127.0.0.1:${gateway.port}\r\n`;
const json = 'Content-Type: application/json\r\n';
const chunked = 'Transfer-Encoding: chunked\r\n';

beforeAll(async () => {
  gateway = await startGateway(tempHome().home);
});
afterAll(async () => {
  await gateway?.stop();
});

/** The envelope's code, after checking that the answer is one: JSON, the catalogue's status for that code. */
function envelopeCode(answer: WireAnswer): string {
  expect(answer.headers['content-type'], answer.wire.slice(0, 300)).toBe('application/json; charset=utf-8');
  const code = answer.json?.error?.code as keyof typeof ERROR_CODES;
  expect(Object.keys(answer.json?.error ?? {}).sort(), answer.wire.slice(0, 300)).toEqual(['code', 'details', 'message']);
  expect(ERROR_CODES[code]?.status, `${code}: the catalogue's status`).toBe(answer.status);
  return code;
}

describe('what the HTTP parser refuses', () => {
  const cases: [string, () => string, number, string][] = [
    ['a URL over 16 KB', () => `GET /api/status?q=${'a'.repeat(17_000)} HTTP/1.1\r\n${host()}\r\n`, 431, 'request.headers_too_large'],
    ['headers over 16 KiB', () => `GET /api/status HTTP/1.1\r\n${host()}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'request.headers_too_large'],
    ['a bad chunk size (a Fastify route)', () => `POST /api/settings/reload HTTP/1.1\r\n${host()}${json}${chunked}\r\nZZ\r\n{}\r\n0\r\n\r\n`, 400, 'request.malformed'],
    ['a bad chunk size (a /v1 front-door route)', () => `POST /v1/chat/completions HTTP/1.1\r\n${host()}${json}${chunked}\r\n2\r\n{}\r\nZZ\r\n`, 400, 'request.malformed'],
    ['both Content-Length and Transfer-Encoding', () => `POST /v1/chat/completions HTTP/1.1\r\n${host()}${json}Content-Length: 2\r\n${chunked}\r\n2\r\n{}\r\n0\r\n\r\n`, 400, 'request.malformed'],
    ['a NUL in the path', () => `GET /api/st\0atus HTTP/1.1\r\n${host()}\r\n`, 400, 'request.malformed'],
    ['a header name with a space', () => `GET /api/status HTTP/1.1\r\n${host()}Bad Header: x\r\n\r\n`, 400, 'request.malformed'],
    ['an invalid method', () => `G@T /api/status HTTP/1.1\r\n${host()}\r\n`, 400, 'request.malformed'],
    ['an HTTP/1.1 request without Host', () => 'GET /api/status HTTP/1.1\r\n\r\n', 400, 'request.malformed'],
  ];

  it.each(cases)('answers %s in the envelope and closes the connection', async (_label, bytes, status, code) => {
    const answer = await wireRequest(gateway.port, bytes());
    expect([answer.status, envelopeCode(answer)]).toEqual([status, code]);
    expect(String(answer.headers.connection).toLowerCase()).toBe('close');
  });

  it('says what was wrong in the words of the parser', async () => {
    const answer = await wireRequest(gateway.port, `POST /api/settings/reload HTTP/1.1\r\n${host()}${json}${chunked}\r\nZZ\r\n`);
    expect(answer.json.error.details).toEqual({ reason: 'Invalid character in chunk size', parser_code: 'HPE_INVALID_CHUNK_SIZE' });
    const hostless = await wireRequest(gateway.port, 'POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 0\r\n\r\n');
    expect(hostless.json.error.message).toContain('must carry a Host header');
  });
});

describe('what the router refuses', () => {
  const long = 'a'.repeat(10_000);
  it.each([
    ['%ZZ in a slot name', 'GET /api/slots/%ZZ', 400, 'request.invalid_path'],
    ['%ZZ in a model id on /v1', 'GET /v1/models/%ZZ', 400, 'request.invalid_path'],
    ['%ZZ after a front-door route', 'POST /v1/chat/completions%ZZ', 400, 'request.invalid_path'],
    ['a 10 KB stack name', `DELETE /api/stacks/${long}`, 414, 'request.path_too_long'],
    ['a 10 KB slot name', `POST /api/slots/${long}/load`, 414, 'request.path_too_long'],
  ])('answers %s in the envelope', async (_label, line, status, code) => {
    const answer = await wireRequest(gateway.port, `${line} HTTP/1.1\r\n${host()}${json}Content-Length: 2\r\n\r\n{}`);
    expect([answer.status, envelopeCode(answer)]).toEqual([status, code]);
    expect(answer.text.length).toBeLessThan(2_000);
  });

  it('takes the longest names there are: a 128-character model id reaches its route', async () => {
    const answer = await api(gateway.url, `/api/models/${'m'.repeat(128)}`);
    expect([answer.status, answer.json.error.code]).toEqual([404, 'model.not_found']);
  });

  it('goes on serving', async () => {
    expect((await api(gateway.url, '/api/status')).status).toBe(200);
  });
});

describe('a client that drops mid-body', () => {
  it('is answered nothing and logged nowhere: no internal error on stderr, none in activity', async () => {
    const half = (path: string, type: string, body: string) => `POST ${path} HTTP/1.1\r\n${host()}Content-Type: ${type}\r\nContent-Length: 4096\r\n\r\n${body}`;
    const drops = [
      half('/api/settings', 'application/json', '{"slots":'),
      half('/v1/chat/completions', 'application/json', '{"model":"x","messages":['),
      half('/v1/audio/transcriptions', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt'),
      `PUT /api/settings HTTP/1.1\r\n${host()}${json}${chunked}\r\n9\r\n{"slots":`,
    ];
    for (const bytes of drops) {
      const answer = await wireRequest(gateway.port, bytes, { thenClose: true });
      expect(answer.wire).toBe('');
    }
    // The gateway took each close before this answer (the sockets above closed first).
    expect((await api(gateway.url, '/api/status')).status).toBe(200);
    const activity = (await api(gateway.url, '/api/activity?limit=500')).text;
    expect(activity).not.toContain('system.internal');
    await gateway.stop();
    expect(gateway.output()).not.toMatch(/internal error|aborted|ECONNRESET/i);
  });
});
