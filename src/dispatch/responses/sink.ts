// The client side of a translated /v1/responses exchange. The dispatcher forwards the chat
// completion it was given exactly as it forwards any other (the slot made ready, the cold
// stream shared, metered, errors put in the envelope) and writes the answer to what it takes
// for the client's response: this sink. The sink turns what it is given into the Responses
// API's answer on the real response: a stream chunk by chunk into Responses events as they
// arrive, a JSON answer into a Response object, and an error answer through unchanged.
import { EventEmitter } from 'node:events';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { renameErrorPaths } from './error-paths.js';
import { responseFromChat, ResponsesStream, type ResponseMeta } from './index.js';

/** A chat answer larger than this (not streamed) is refused rather than held in memory. */
export const CHAT_ANSWER_MAX_BYTES = 64 * 1024 * 1024;

export interface SinkOptions {
  stream: boolean;
  meta: ResponseMeta;
  /** The final Response object (completed, incomplete or failed), once: to store it. */
  onDone(response: Record<string, unknown>): void;
}

type Headers = OutgoingHttpHeaders | Record<string, string | string[] | number>;

const header = (headers: Headers | undefined, name: string) => {
  const value = headers?.[name];
  return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
};

/** Stands in for the ServerResponse the dispatcher writes to (only what it uses). */
export class ResponsesSink extends EventEmitter {
  headersSent = false;
  private ended = false;
  /** An error answer (or anything not JSON/SSE): relayed as it is. */
  private passthrough = false;
  /** A client error in JSON: held until its end, to name fields the way the client wrote them. */
  private heldError: { status: number; headers: OutgoingHttpHeaders } | undefined;
  private finished = false;
  private readonly buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private timing: string | undefined;
  private translator: ResponsesStream | undefined;
  private parser: EventSourceParser | undefined;
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly real: ServerResponse, private readonly options: SinkOptions) {
    super();
    real.on('close', () => this.emit('close'));
    real.on('drain', () => this.emit('drain'));
  }

  get destroyed(): boolean {
    return this.real.destroyed;
  }

  get writableEnded(): boolean {
    return this.ended;
  }

  writeHead(status: number, headers?: Headers): this {
    this.headersSent = true;
    const type = header(headers, 'content-type') ?? '';
    if (status >= 400 && status < 500 && /json/i.test(type)) {
      this.heldError = { status, headers: { ...(headers as OutgoingHttpHeaders) } };
      return this;
    }
    if (status >= 300 || !/json|event-stream/i.test(type)) {
      this.passthrough = true;
      this.real.writeHead(status, headers as OutgoingHttpHeaders);
      return this;
    }
    this.timing = header(headers, 'server-timing');
    if (this.options.stream) this.openStream();
    return this;
  }

  flushHeaders(): void {
    if (this.real.headersSent) this.real.flushHeaders();
  }

  write(chunk: Buffer | Uint8Array | string): boolean {
    if (this.passthrough) return this.real.write(chunk);
    if (this.parser) {
      this.parser.feed(typeof chunk === 'string' ? chunk : this.decoder.write(Buffer.from(chunk)));
      // 'drain' comes from the real response, so only its own back-pressure may pause the relay.
      return !this.real.writableNeedDrain;
    }
    const bytes = Buffer.from(chunk);
    this.bufferedBytes += bytes.length;
    if (this.bufferedBytes <= CHAT_ANSWER_MAX_BYTES) this.buffered.push(bytes);
    return true;
  }

  end(chunk?: Buffer | Uint8Array | string): this {
    if (this.ended) return this;
    if (chunk !== undefined) this.write(chunk);
    this.ended = true;
    if (this.passthrough) this.real.end();
    else if (this.heldError) this.endError(this.heldError);
    else if (this.translator) this.endStream();
    else this.endJson();
    return this;
  }

  private openStream(): void {
    this.real.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no',
      ...(this.timing && { 'server-timing': this.timing }),
    });
    this.real.flushHeaders();
    this.translator = new ResponsesStream(this.options.meta, (event) => this.real.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`));
    this.translator.start();
    this.parser = createParser({
      onEvent: (event) => this.chatEvent(event.data),
      // The gateway's "still loading" comments keep proxies patient; they go on as comments.
      onComment: (comment) => this.real.write(`:${comment}\n\n`),
    });
  }

  private chatEvent(data: string): void {
    if (this.finished) return;
    if (data === '[DONE]') return this.done(this.translator!.finish());
    let chunk: Record<string, unknown>;
    try {
      chunk = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return this.done(this.translator!.fail({ code: 'dispatch.upstream_bad_response', message: 'the chat stream carried an event that is not JSON' }));
    }
    const error = chunk.error as { code?: unknown; message?: unknown } | undefined;
    if (error && typeof error === 'object') {
      return this.done(this.translator!.fail({ code: String(error.code ?? 'upstream.error'), message: String(error.message ?? 'the upstream failed') }));
    }
    this.translator!.chunk(chunk);
  }

  private endStream(): void {
    this.parser!.feed(this.decoder.end());
    // A stream that ended without [DONE] and without an error event: what came is the answer.
    if (!this.finished) this.done(this.translator!.finish());
    this.real.end();
  }

  private endJson(): void {
    let response: Record<string, unknown>;
    try {
      if (this.bufferedBytes > CHAT_ANSWER_MAX_BYTES) throw new Error(`the chat answer is larger than ${CHAT_ANSWER_MAX_BYTES} bytes`);
      const chat = JSON.parse(Buffer.concat(this.buffered).toString('utf8')) as Record<string, unknown>;
      response = responseFromChat(this.options.meta, chat);
    } catch (error) {
      const envelope = { error: { code: 'dispatch.upstream_bad_response', message: `the chat answer could not be read as a Response: ${(error as Error).message}`, details: {} } };
      this.real.writeHead(502, { 'content-type': 'application/json; charset=utf-8' });
      this.real.end(JSON.stringify(envelope));
      return;
    }
    this.done(response);
    const text = JSON.stringify(response);
    this.real.writeHead(200, {
      'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text),
      ...(this.timing && { 'server-timing': this.timing }),
    });
    this.real.end(text);
  }

  private endError({ status, headers }: { status: number; headers: OutgoingHttpHeaders }): void {
    const text = renameErrorPaths(Buffer.concat(this.buffered).toString('utf8'));
    this.real.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(text) });
    this.real.end(text);
  }

  private done(response: Record<string, unknown>): void {
    this.finished = true;
    this.options.onDone(response);
  }
}
