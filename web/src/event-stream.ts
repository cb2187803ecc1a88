// The dashboard's one live connection: GET /api/events/stream, read with fetch rather than
// EventSource. EventSource hides why it failed (no status, no error envelope), gives up for
// good on a non-200 answer, and keeps resuming from an id of a gateway that has since
// restarted. This client reconnects itself with Last-Event-ID, reports every outage (and the
// API error that caused it, with its code and message), and notices a restarted gateway by
// the epoch in the stream's opening comment, so the page refetches instead of reloading.
import { readSse } from './sse-read.js';
import type { SvcEvent } from '../../src/protocol/events.js';
import { ApiError, errorFromResponse } from './api-error.js';

export type StreamState = 'connecting' | 'open' | 'down';

export interface StreamStatus {
  state: StreamState;
  /** Failed tries in a row; 0 once a connection opened. */
  failures: number;
  /** Why the last try failed (an API envelope's code and message, or a network error). */
  error: ApiError | null;
  /** The id the next connection resumes after. */
  lastEventId: number | null;
}

export interface StreamHandlers {
  onEvent(event: SvcEvent): void;
  onStatus(status: StreamStatus): void;
  /**
   * A connection opened after an outage, or onto another boot of the gateway (`restarted`):
   * events may have been missed, so the page's snapshots should be fetched again.
   */
  onResync(restarted: boolean): void;
}

export interface StreamDeps {
  fetch: typeof fetch;
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

/** Back-off between tries: 0.5 s, doubling, at most 10 s. */
export function reconnectDelay(failures: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, failures - 1));
}

function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof SyntaxError) return new ApiError('events.bad_frame', `an event was not JSON: ${error.message}`);
  return new ApiError('network.unreachable', `the gateway did not answer: ${error instanceof Error ? error.message : String(error)}`);
}

const EPOCH = /^\s*svc events, epoch (\S+)/;

export class EventStreamClient {
  private status: StreamStatus = { state: 'connecting', failures: 0, error: null, lastEventId: null };
  private epoch: string | null = null;
  private abort: AbortController | null = null;
  private timer: unknown = null;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly handlers: StreamHandlers,
    private readonly deps: StreamDeps = { fetch: (...a) => fetch(...a), setTimeout: (fn, ms) => setTimeout(fn, ms), clearTimeout: (h) => clearTimeout(h as number) },
  ) {}

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    if (this.timer !== null) this.deps.clearTimeout(this.timer);
    this.timer = null;
  }

  private set(next: Partial<StreamStatus>): void {
    this.status = { ...this.status, ...next };
    this.handlers.onStatus(this.status);
  }

  private async connect(): Promise<void> {
    this.timer = null;
    const abort = new AbortController();
    this.abort = abort;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.status.lastEventId !== null) headers['last-event-id'] = String(this.status.lastEventId);
    try {
      const response = await this.deps.fetch(this.url, { headers, signal: abort.signal, cache: 'no-store' });
      if (!response.ok || response.body === null) throw await errorFromResponse(response);
      await this.read(response.body);
      // The server ended the stream (a graceful shutdown): a try to come back, like any outage.
      throw new ApiError('events.stream_ended', 'the gateway closed the event stream');
    } catch (error) {
      // A stream given up on (a bad frame) is closed, not left open beside the next one.
      abort.abort();
      if (this.stopped) return;
      const failures = this.status.failures + 1;
      this.set({ state: 'down', failures, error: asApiError(error) });
      this.timer = this.deps.setTimeout(() => void this.connect(), reconnectDelay(failures));
    }
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    let opened = false;
    await readSse(body, {
      onComment: (comment) => {
        const epoch = EPOCH.exec(comment)?.[1];
        if (epoch === undefined || opened) return;
        opened = true;
        const restarted = this.epoch !== null && this.epoch !== epoch;
        const wasDown = this.status.failures > 0;
        this.epoch = epoch;
        // Ids start again from 1 on another boot; resuming from the old one would skip events.
        if (restarted) this.status = { ...this.status, lastEventId: null };
        this.set({ state: 'open', failures: 0, error: null });
        if (restarted || wasDown) this.handlers.onResync(restarted);
      },
      onEvent: (message) => {
        if (message.id !== undefined && /^\d+$/.test(message.id)) this.status = { ...this.status, lastEventId: Number(message.id) };
        this.handlers.onEvent(JSON.parse(message.data) as SvcEvent);
      },
    });
  }
}
