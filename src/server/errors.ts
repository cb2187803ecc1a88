// The one place failures become HTTP responses: every error, ours or the framework's, is
// rendered as {error:{code,message,details}} with the status from the code table.
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply } from 'fastify';
import { ConfigError, RequestError, SvcError, SystemError } from '../protocol/errors.js';

/** What a request was, for errors that should say what to send instead. */
interface RequestLine {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** 415 says what to send: every route with a body but one takes JSON (transcriptions says so itself). */
export function unsupportedMediaType(request: RequestLine | undefined): SvcError {
  const got = request?.headers['content-type'];
  const where = request ? `${request.method} ${request.url.split('?')[0]}` : 'this route';
  return new RequestError('request.unsupported_media_type', `${where} takes a JSON body: send the header Content-Type: application/json (got ${got ? `Content-Type: ${String(got)}` : 'no Content-Type'})`, {
    content_type: got ?? null,
    accepts: ['application/json'],
  });
}

export const bodyTooLarge = () => new RequestError('request.too_large', 'The request body is larger than the server accepts ([api].max_body_mb).');
export const contentLengthMismatch = () => new RequestError('request.invalid', 'Content-Length does not match the body.');

/**
 * The longest path segment the router takes as a name (a slot, a model id, a tool server):
 * above every name's own limit (256 at most) even when each character is percent-encoded.
 */
export const MAX_PATH_PARAM = 1024;
/** How much of a path an error repeats. */
const MAX_PATH_ECHO = 200;
const pathOf = (request?: RequestLine) => (request?.url ?? '').split('?')[0]!.slice(0, MAX_PATH_ECHO);

export const malformedRequest = (reason: string, details: Record<string, unknown> = {}) =>
  new RequestError('request.malformed', `The request is not well-formed HTTP/1.1: ${reason}. The connection is closed.`, { reason, ...details });

const FRAMEWORK_ERRORS: Record<string, (error: FastifyError, request?: RequestLine) => SvcError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: bodyTooLarge,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, request) => unsupportedMediaType(request),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new RequestError('request.invalid_json', 'The body is empty but Content-Type says JSON.'),
  FST_ERR_CTP_INVALID_JSON_BODY: (e) => new RequestError('request.invalid_json', `The body is not valid JSON: ${e.message}`),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: contentLengthMismatch,
  // The router's own refusals (Fastify's frameworkErrors, app.ts).
  FST_ERR_BAD_URL: (_e, request) => new RequestError('request.invalid_path', `The path ${pathOf(request)} is not valid percent-encoding: a % must be followed by two hex digits (%2F, not %ZZ).`, { path: pathOf(request) }),
  FST_ERR_MAX_PARAM_LENGTH: (_e, request) => new RequestError('request.path_too_long', `A segment of the path ${pathOf(request)}… is longer than any name svc has (${MAX_PATH_PARAM} characters at most).`, { path: pathOf(request), limit: MAX_PATH_PARAM }),
};

/** Filesystem refusals any write may meet, in words a user can act on. */
const FS_REFUSALS: Record<string, string> = {
  EROFS: 'the filesystem is read-only',
  ENOSPC: 'no space is left on the device (the disk is full)',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file would exceed the size limit',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/**
 * A write refused by the filesystem (read-only, full, no permission) is config.not_writable
 * naming the path, not an internal error: the user can fix it. Writes are atomic (a temp
 * file renamed over the target), so the file it was writing is unchanged.
 */
function fsRefusal(error: unknown): SvcError | undefined {
  const { code, path, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  const reason = code ? FS_REFUSALS[code] : undefined;
  if (!reason || typeof path !== 'string') return undefined;
  return new ConfigError('config.not_writable', `cannot write ${path}: ${reason}; the file it was replacing is unchanged`, { path, errno: code, syscall: syscall ?? null }, { cause: error });
}

export function toSvcError(error: unknown, request?: RequestLine): SvcError {
  if (error instanceof SvcError) return error;
  const refusal = fsRefusal(error);
  if (refusal) return refusal;
  const fastifyError = error as Partial<FastifyError>;
  const mapped = fastifyError.code ? FRAMEWORK_ERRORS[fastifyError.code] : undefined;
  if (mapped) return mapped(fastifyError as FastifyError, request);
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new RequestError('request.invalid_json', `The body is not valid JSON: ${error.message}`);
  }
  if (fastifyError.validation) {
    return new RequestError('request.invalid', fastifyError.message ?? 'invalid request', { problems: fastifyError.validation });
  }
  return new SystemError('system.internal', 'Internal error; the server log has the details.', {}, { cause: error });
}

/**
 * Whether a failure is the client breaking off its own request: it closed the connection
 * before its body arrived in full (Node's "aborted"; a malformed chunk ends the same way,
 * after client-errors.ts answered it). That is no error of svc's, and nobody is left to
 * answer: it is neither rendered nor logged.
 */
export function clientBrokeOff(error: unknown, req: IncomingMessage): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE') && !req.complete;
}

/** An error as the HTTP answer it becomes: status, headers and the envelope's bytes. */
export interface ErrorAnswerParts {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The one error renderer: every failure, on the Fastify routes, on the /v1 front door
 * (front-door.ts) and in Node's HTTP parser (client-errors.ts) alike, becomes
 * {error:{code,message,details}} with the status of its code.
 */
export function renderError(error: unknown, request?: RequestLine): ErrorAnswerParts {
  const svcError = toSvcError(error, request);
  if (svcError.code === 'system.internal') {
    process.stderr.write(`svc: internal error on ${request ? `${request.method} ${request.url}` : 'a connection'}: ${(error as Error)?.stack ?? String(error)}\n`);
  }
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  const retryAfter = svcError.details.retry_after_s;
  if ((svcError.status === 503 || svcError.status === 429) && typeof retryAfter === 'number') headers['retry-after'] = String(Math.ceil(retryAfter));
  // RFC 9110: a 401 names the scheme that would work.
  if (svcError.status === 401) headers['www-authenticate'] = 'Bearer realm="svc"';
  return { status: svcError.status, headers, body: JSON.stringify(svcError.toEnvelope()) };
}

export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  const answer = renderError(error, reply.request);
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}
