// /v1/responses over a chat completion, the answer's side: the dispatcher's result for the
// chat request (planChat made it) turned into the Responses API's answer. A stream becomes
// Responses events chunk by chunk as the chat chunks arrive, a JSON answer a Response object,
// a client error in JSON the same error with fields named as the client wrote them, and
// anything else (a 5xx, a body that is neither JSON nor SSE) goes through unchanged. Pure:
// it reads the result it is given and reads nothing else.
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import { contentTypeOf, type DispatchResult, discard, isStream, jsonResult, readBody, type ResultHeaders } from '../result.js';
import { responseFromChat } from './answer.js';
import { renameErrorPaths } from './error-paths.js';
import { ResponsesStream } from './stream.js';
import type { Json, ResponseMeta } from './types.js';

export interface TranslateOptions {
  stream: boolean;
  meta: ResponseMeta;
  /** The final Response object (completed, incomplete or failed), once: to store it. */
  onDone(response: Json): void;
}

const timingOf = (headers: ResultHeaders): ResultHeaders => (headers['server-timing'] === undefined ? {} : { 'server-timing': headers['server-timing'] });

/** The Responses answer for a chat completion's result. */
export async function responsesResult(chat: DispatchResult, options: TranslateOptions): Promise<DispatchResult> {
  const type = contentTypeOf(chat.headers);
  if (chat.status >= 400 && chat.status < 500 && /json/i.test(type)) {
    const text = renameErrorPaths((await readBody(chat.body)).toString('utf8'));
    return { status: chat.status, headers: { ...chat.headers, 'content-length': Buffer.byteLength(text) }, body: text };
  }
  if (chat.status >= 300 || !/json|event-stream/i.test(type)) return chat;
  if (options.stream) {
    const body = isStream(chat.body) ? chat.body : once(chat.body);
    return { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...timingOf(chat.headers) }, body: responsesEvents(body, options) };
  }
  let response: Json;
  try {
    // A chat answer larger than READ_MAX_BYTES is cut off there, and then is no JSON.
    response = responseFromChat(options.meta, JSON.parse((await readBody(chat.body)).toString('utf8')) as Json);
  } catch (error) {
    await discard(chat.body);
    return jsonResult(502, { error: { code: 'dispatch.upstream_bad_response', message: `the chat answer could not be read as a Response: ${(error as Error).message}`, details: {} } });
  }
  options.onDone(response);
  return jsonResult(200, response, timingOf(chat.headers));
}

/**
 * A chat completions SSE stream as the Responses event stream: one output chunk per input
 * chunk (every event it completed), the gateway's "still loading" comments kept as comments.
 */
export async function* responsesEvents(chat: AsyncIterable<Uint8Array>, options: Pick<TranslateOptions, 'meta' | 'onDone'>): AsyncGenerator<Uint8Array> {
  let out = '';
  let finished = false;
  const done = (response: Json) => {
    finished = true;
    options.onDone(response);
  };
  const translator = new ResponsesStream(options.meta, (event) => (out += `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`));
  const parser = createParser({
    onEvent: (event) => {
      if (!finished) chatEvent(event.data, translator, done);
    },
    onComment: (comment) => (out += `:${comment}\n\n`),
  });
  const decoder = new StringDecoder('utf8');
  translator.start();
  for await (const chunk of chat) {
    parser.feed(decoder.write(chunk as Buffer));
    if (out === '') continue;
    const text = out;
    out = '';
    yield Buffer.from(text);
  }
  parser.feed(decoder.end());
  // A stream that ended without [DONE] and without an error event: what came is the answer.
  if (!finished) done(translator.finish());
  if (out !== '') yield Buffer.from(out);
}

function chatEvent(data: string, translator: ResponsesStream, done: (response: Json) => void): void {
  if (data === '[DONE]') return done(translator.finish());
  let chunk: Json;
  try {
    chunk = JSON.parse(data) as Json;
  } catch {
    return done(translator.fail({ code: 'dispatch.upstream_bad_response', message: 'the chat stream carried an event that is not JSON' }));
  }
  const error = chunk.error as { code?: unknown; message?: unknown } | undefined;
  if (error && typeof error === 'object') {
    return done(translator.fail({ code: String(error.code ?? 'upstream.error'), message: String(error.message ?? 'the upstream failed') }));
  }
  translator.chunk(chunk);
}

/** A whole body (a JSON answer to a stream request) as a stream of one chunk. */
async function* once(body: string | Uint8Array): AsyncGenerator<Uint8Array> {
  yield typeof body === 'string' ? Buffer.from(body) : body;
}
