// Stands in for the ServerResponse the dispatcher writes to, so the loop can call a model or
// a modality slot in process (no HTTP call to ourselves) and read the answer: the status and
// headers it was given, and the body, either whole or chunk by chunk to a listener (a round
// that streams). Only what the dispatcher uses of a ServerResponse is here (compare
// src/dispatch/responses/sink.ts). Closing it (close()) is the caller leaving: the
// dispatcher's upstream request is aborted.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { ClientExchange } from '../dispatch/types.js';

/** An answer larger than this is cut off rather than held in memory. */
export const CAPTURE_MAX_BYTES = 64 * 1024 * 1024;

type Headers = Record<string, string | string[] | number | undefined>;

export class CaptureSink extends EventEmitter {
  headersSent = false;
  status = 0;
  headers: Headers = {};
  private ended = false;
  private gone = false;
  private readonly parts: Buffer[] = [];
  private bytes = 0;

  /** onChunk: each body chunk as it arrives (nothing is buffered then). */
  constructor(private readonly onChunk?: (chunk: Buffer, sink: CaptureSink) => void) {
    super();
  }

  get destroyed(): boolean {
    return this.gone;
  }

  get writableEnded(): boolean {
    return this.ended;
  }

  get writableNeedDrain(): boolean {
    return false;
  }

  writeHead(status: number, headers?: Headers): this {
    this.headersSent = true;
    this.status = status;
    this.headers = { ...headers };
    return this;
  }

  flushHeaders(): void {}

  setHeader(name: string, value: string | number | string[]): this {
    this.headers[name.toLowerCase()] = value;
    return this;
  }

  write(chunk: Buffer | Uint8Array | string): boolean {
    if (this.ended || this.gone) return true;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.onChunk && this.status < 400) {
      this.onChunk(bytes, this);
      return true;
    }
    this.bytes += bytes.length;
    if (this.bytes <= CAPTURE_MAX_BYTES) this.parts.push(bytes);
    return true;
  }

  end(chunk?: Buffer | Uint8Array | string): this {
    if (this.ended) return this;
    if (chunk !== undefined) this.write(chunk);
    this.ended = true;
    this.emit('finish');
    this.emit('close');
    return this;
  }

  /** The caller left: the dispatcher sees the response close before it ended, and aborts. */
  close(): void {
    if (this.ended || this.gone) return;
    this.gone = true;
    this.emit('close');
  }

  body(): Buffer {
    return Buffer.concat(this.parts);
  }

  contentType(): string {
    const type = this.headers['content-type'];
    return Array.isArray(type) ? type.join(', ') : String(type ?? '');
  }

  /** As the dispatcher's client side. */
  exchange(): ClientExchange {
    return { res: this as unknown as ServerResponse, takeOver: () => undefined };
  }
}
