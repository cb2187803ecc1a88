import { describe, expect, it } from 'vitest';
import { clientErrorRefusal, rawAnswer } from './client-errors.js';

const parserError = (code: string, reason?: string) => Object.assign(new Error(`Parse Error: ${reason ?? code}`), { code, ...(reason && { reason }) });

describe('clientErrorRefusal', () => {
  it('names each refusal by a code of the catalogue', () => {
    expect(clientErrorRefusal(parserError('HPE_HEADER_OVERFLOW'))?.code).toBe('request.headers_too_large');
    expect(clientErrorRefusal(parserError('ERR_HTTP_REQUEST_TIMEOUT'))?.code).toBe('request.timeout');
    const chunk = clientErrorRefusal(parserError('HPE_INVALID_CHUNK_SIZE', 'Invalid character in chunk size'));
    expect([chunk?.code, chunk?.details]).toEqual(['request.malformed', { reason: 'Invalid character in chunk size', parser_code: 'HPE_INVALID_CHUNK_SIZE' }]);
  });

  it('answers nobody who is gone', () => {
    for (const code of ['ECONNRESET', 'EPIPE', 'HPE_INVALID_EOF_STATE']) expect(clientErrorRefusal(parserError(code)), code).toBeUndefined();
  });
});

describe('rawAnswer', () => {
  it('is a whole HTTP/1.1 answer that closes the connection, its body the envelope', () => {
    const bytes = rawAnswer(clientErrorRefusal(parserError('HPE_HEADER_OVERFLOW'))!);
    const [head, body] = bytes.split('\r\n\r\n') as [string, string];
    const [status, ...headers] = head.split('\r\n');
    expect(status).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(headers).toEqual(['content-type: application/json; charset=utf-8', `content-length: ${Buffer.byteLength(body)}`, 'connection: close']);
    expect(JSON.parse(body).error.code).toBe('request.headers_too_large');
  });
});
