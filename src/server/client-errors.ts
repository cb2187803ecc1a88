// What Node's HTTP parser refuses before a request exists, or in the middle of one (a bad
// chunk, both Content-Length and Transfer-Encoding, a NUL or a space in the request line, a
// header without a name, a request line and headers over 16 KiB, a request that never
// arrived in full): Fastify's clientErrorHandler (app.ts). There is no request or response
// object then, so the envelope goes on the socket as a whole HTTP/1.1 answer with
// Connection: close, and the connection is closed: it cannot be read any further.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { RequestError, type SvcError } from '../protocol/errors.js';
import { malformedRequest, renderError } from './errors.js';

type ParserError = Error & { code?: string; reason?: string };

/** The refusal for an error of Node's HTTP parser; undefined when the client is gone (nobody to answer). */
export function clientErrorRefusal(error: ParserError): SvcError | undefined {
  switch (error.code) {
    // The client closed its connection (mid-request, for HPE_INVALID_EOF_STATE): nobody to answer.
    case 'ECONNRESET':
    case 'EPIPE':
    case 'HPE_INVALID_EOF_STATE':
      return undefined;
    case 'HPE_HEADER_OVERFLOW':
      return new RequestError('request.headers_too_large', `The request line and headers are larger than svc reads (${maxHeaderSize} bytes): a URL or headers that long are refused.`, { limit_bytes: maxHeaderSize });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new RequestError('request.timeout', 'The request did not arrive in full in time. The connection is closed.');
    default:
      // llhttp's reason, e.g. "Invalid character in chunk size" or "Content-Length can't be present with Transfer-Encoding".
      return malformedRequest((error.reason ?? error.message).slice(0, 200), { parser_code: error.code ?? null });
  }
}

/** A refusal as the bytes of a whole HTTP/1.1 answer that closes the connection. */
export function rawAnswer(refusal: SvcError): string {
  const { status, headers, body } = renderError(refusal);
  const lines = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${lines.join('')}\r\n${body}`;
}

/** Fastify's clientErrorHandler: answer the refusal when the socket can still take it, then close. */
export function answerClientError(error: ParserError, socket: Duplex): void {
  const refusal = clientErrorRefusal(error);
  // An answer already under way on this connection must not be cut into (Node's own rule).
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (refusal && socket.writable && !inFlight?.headersSent) socket.write(rawAnswer(refusal));
  socket.destroy();
}
