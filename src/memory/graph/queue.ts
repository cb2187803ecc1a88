// The extraction queue: in process, bounded, one job at a time (an extraction is one call to
// a local chat model; running several would only queue them at the slot). A job is tried up
// to MAX_ATTEMPTS times with a growing pause; its outcome is counted for the status. A full
// queue refuses a job: the item stays without an extraction and a retry queues it later.
import type { ExtractionJob } from './graph-store.js';

export const QUEUE_CAPACITY = 1000;
export const MAX_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 1000;

export interface QueueCounters { in_flight: number; builds_ok: number; errors: number; last_built_at: string | null; last_error: string | null }

export interface QueueWork {
  /** One attempt; throws to be tried again. Returns false when the item is gone (neither ok nor an error). */
  attempt: (job: ExtractionJob, attempt: number, signal: AbortSignal) => Promise<boolean>;
  /** After the last attempt failed. */
  failed: (job: ExtractionJob, attempts: number, error: Error) => Promise<void>;
}

export class ExtractionQueue {
  private readonly waiting: ExtractionJob[] = [];
  private readonly keys = new Set<string>();
  private running = false;
  private closed = false;
  /** Aborted by close(): the model call in hand ends rather than holding the shutdown. */
  private readonly stop = new AbortController();
  private idle: Promise<void> = Promise.resolve();
  readonly counters: QueueCounters = { in_flight: 0, builds_ok: 0, errors: 0, last_built_at: null, last_error: null };

  constructor(private readonly work: QueueWork, private readonly capacity = QUEUE_CAPACITY) {}

  /** Queued (true), or refused: already queued, the queue is full, or closed. */
  enqueue(job: ExtractionJob): boolean {
    if (this.closed || this.keys.has(job.id) || this.keys.size >= this.capacity) return false;
    this.keys.add(job.id);
    this.waiting.push(job);
    this.counters.in_flight = this.keys.size;
    if (!this.running) this.idle = this.drain();
    return true;
  }

  has(id: string): boolean {
    return this.keys.has(id);
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let job = this.waiting.shift(); job && !this.closed; job = this.waiting.shift()) {
        await this.run(job);
        this.keys.delete(job.id);
        this.counters.in_flight = this.keys.size;
      }
    } finally {
      this.running = false;
    }
  }

  private async run(job: ExtractionJob): Promise<void> {
    let last: Error = new Error('not tried');
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && !this.closed; attempt++) {
      try {
        if (await this.work.attempt(job, attempt, this.stop.signal)) {
          this.counters.builds_ok += 1;
          this.counters.last_built_at = new Date().toISOString();
        }
        return;
      } catch (error) {
        last = error instanceof Error ? error : new Error(String(error));
        if (attempt < MAX_ATTEMPTS && !this.closed) await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS * attempt).unref());
      }
    }
    if (this.closed) return; // a shutdown is no failure of the item's
    this.counters.errors += 1;
    this.counters.last_error = last.message;
    await this.work.failed(job, MAX_ATTEMPTS, last).catch(() => undefined);
  }

  /** Stops taking and running jobs; waits for the one in hand. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    this.stop.abort();
    await this.idle.catch(() => undefined);
    this.keys.clear();
    this.counters.in_flight = 0;
  }
}
