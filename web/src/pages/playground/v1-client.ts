// The Playground's calls to /v1: JSON in and out, a multipart upload, audio bytes, and a
// chat stream read with fetch and eventsource-parser (as the app's event stream is). Each
// answer comes with svc's timing from its Server-Timing header; each failure is an ApiError
// with the gateway's code and message (an engine's error arrives in the same envelope).
import { readSse } from '../../sse-read.js';
import { ApiError, errorFromResponse } from '../../api-error.js';
import { gatewayTiming, type GatewayTiming } from './server-timing.js';

export interface Timed<T> {
  body: T;
  timing: GatewayTiming;
}

/** A Stop (AbortController) is the user's choice, not a failure: it is passed on as it is. */
export const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';

async function send(path: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (isAbort(error)) throw error;
    throw new ApiError('network.unreachable', `the gateway did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) throw await errorFromResponse(response);
  return response;
}

const JSON_HEADERS = { accept: 'application/json', 'content-type': 'application/json' };

export async function postJson<T>(path: string, body: unknown, signal?: AbortSignal): Promise<Timed<T>> {
  const response = await send(path, { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(body), ...(signal && { signal }) });
  return { body: (await response.json()) as T, timing: gatewayTiming(response.headers.get('server-timing')) };
}

/**
 * A multipart body (the transcription route); the browser writes the boundary. A web form
 * can send multipart too: X-Requested-With makes it a request no form can send (it takes a
 * preflight off this origin), so no browser header can get it refused (request.form_post).
 */
export async function postForm<T>(path: string, form: FormData, signal?: AbortSignal): Promise<Timed<T>> {
  const response = await send(path, { method: 'POST', headers: { accept: 'application/json', 'x-requested-with': 'svc-dashboard' }, body: form, ...(signal && { signal }) });
  return { body: (await response.json()) as T, timing: gatewayTiming(response.headers.get('server-timing')) };
}

/** Raw bytes back (speech): a Blob with the answer's content type. */
export async function postForBlob(path: string, body: unknown, signal?: AbortSignal): Promise<Timed<Blob>> {
  const response = await send(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal && { signal }) });
  return { body: await response.blob(), timing: gatewayTiming(response.headers.get('server-timing')) };
}

export interface StreamCallbacks {
  /** The head arrived: svc's timing is known before the first token. */
  onHead(timing: GatewayTiming): void;
  /** One `data:` payload. */
  onData(data: string): void;
  /** A comment line: the gateway's `svc: loading slot <name>` keep-alive while a slot starts. */
  onComment(comment: string): void;
}

/** POST a streaming request and feed its SSE to `callbacks` until the stream ends or `signal` aborts. */
export async function postStream(path: string, body: unknown, signal: AbortSignal, callbacks: StreamCallbacks): Promise<void> {
  const response = await send(path, { method: 'POST', headers: { ...JSON_HEADERS, accept: 'text/event-stream' }, body: JSON.stringify(body), signal });
  callbacks.onHead(gatewayTiming(response.headers.get('server-timing')));
  if (response.body === null) throw new ApiError('stream.no_body', 'the answer had no body');
  try {
    await readSse(response.body, { onEvent: (message) => callbacks.onData(message.data), onComment: (comment) => callbacks.onComment(comment.trim()) });
  } catch (error) {
    if (isAbort(error) || signal.aborted) throw new DOMException('stopped', 'AbortError');
    throw new ApiError('stream.broken', `the stream broke off: ${(error as Error).message}`);
  }
}
