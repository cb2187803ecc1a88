// The body of an upstream's 2xx answer as the dispatcher hands it out: the engine's bytes as
// they arrive, never merged or changed, metered on the side (metrics.ts), the slot released
// when it ends. An upstream that breaks off part-way ends a stream with one SSE error event
// (forward.ts, sseErrorEvent) instead of throwing: by then the head is the client's.
import { Readable } from 'node:stream';
import type { SvcError } from '../protocol/errors.js';
import { sseErrorEvent, upstreamError } from './forward.js';
import type { MeterTap } from './metrics.js';
import type { ByteSink, ByteStream } from './result.js';

/** What a relayed body does when it ends. */
export interface BodyEnd {
  tap?: MeterTap;
  /** Stops counting the request in flight on its slot. */
  release?: () => void;
  /** Whether the client asked for a stream (a failure is then an SSE error event). */
  stream: boolean;
  /** Names the target in a failure. */
  target: Record<string, unknown>;
  /** Told once when the body ended: the failure when it broke off, else undefined. */
  onEnd?: (broken: SvcError | undefined) => void;
}

const ignore = () => undefined;

export class UpstreamBody implements ByteStream {
  private done = false;

  constructor(private readonly source: AsyncIterable<Buffer | Uint8Array>, private readonly end: BodyEnd) {}

  /**
   * The relay to a socket: with 'data' events and pause/resume for an undici body, no promise
   * and no iterator step per chunk, which the profile showed on every relayed chunk
   * (docs/performance.md). Resolves when the body ended, broke off (its error event written)
   * or the sink closed (the caller's abort stops the upstream).
   */
  pipeTo(sink: ByteSink): Promise<void> {
    const body = this.source;
    if (!(body instanceof Readable)) return pipeIterable(this, sink);
    const tap = this.end.tap;
    return new Promise<void>((resolve) => {
      let settled = false;
      const onData = (chunk: Buffer) => {
        const flowing = sink.write(chunk);
        tap?.chunk(chunk);
        if (!flowing) body.pause();
      };
      // The listeners stay: both streams are the request's own and end with it, and a late
      // event finds the promise settled. Removing five listeners cost more than the relay.
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        body.off('data', onData);
        const event = error === undefined ? this.finish(sink.destroyed ? 'cancelled' : 'ok') : this.broke(error);
        if (event && !sink.destroyed) sink.write(event);
        resolve();
      };
      const onClose = () => {
        if (settled) return;
        // The client left: stop reading; a later error of the body (the abort) goes nowhere.
        body.on('error', ignore).destroy();
        finish();
      };
      if (sink.destroyed) return onClose();
      body.on('data', onData).on('end', () => finish()).on('error', finish);
      sink.on('drain', () => body.resume());
      sink.on('close', onClose);
    });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    let complete = false;
    let event: string | undefined;
    try {
      for await (const chunk of this.source) {
        yield chunk;
        this.end.tap?.chunk(chunk);
      }
      complete = true;
    } catch (error) {
      event = this.broke(error);
    } finally {
      // A reader that stopped early (break) is a client that left.
      if (event === undefined) this.finish(complete ? 'ok' : 'cancelled');
    }
    if (event) yield Buffer.from(event);
  }

  private finish(outcome: 'ok' | 'cancelled'): undefined {
    if (this.done) return undefined;
    this.done = true;
    this.end.tap?.end(outcome);
    this.end.release?.();
    this.end.onEnd?.(undefined);
    return undefined;
  }

  /** The upstream broke off: counted, told, and for a stream the error event that ends it. */
  private broke(error: unknown): string | undefined {
    if (this.done) return undefined;
    this.done = true;
    const failure = upstreamError(error, this.end.target);
    this.end.tap?.end('error', failure.code);
    this.end.release?.();
    this.end.onEnd?.(failure);
    return this.end.stream ? sseErrorEvent(failure.toEnvelope()) : undefined;
  }
}

/**
 * Any byte stream written to a sink with back-pressure, chunk by chunk as it comes. Resolves
 * at its end or when the sink closed (leaving the loop closes the stream).
 */
export async function pipeIterable(body: AsyncIterable<Uint8Array>, sink: ByteSink): Promise<void> {
  for await (const chunk of body) {
    if (sink.destroyed) return;
    if (!sink.write(chunk)) await new Promise<void>((resolve) => {
      sink.once('drain', resolve);
      sink.once('close', resolve);
    });
  }
}
