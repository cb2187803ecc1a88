// One reader of the bus: a bounded queue between the publishers and a consumer that may be
// slower than they are (an SSE client on a slow link). When the queue is full a new event is
// not queued but counted, and the reader later gets one events.gap in its place, so memory
// stays bounded and the reader still learns exactly how much it missed, and where.
import type { SvcEvent } from '../protocol/events.js';
import { matches, type EventFilter } from './filter.js';

/** Where a run of dropped events was: `dropped` of them, the last one with id `lastId`. */
interface Gap {
  gap: true;
  dropped: number;
  lastId: number;
}

type Entry = SvcEvent | Gap;

export type GapFactory = (dropped: number, lastId: number) => SvcEvent;

export interface SubscriptionOptions {
  filter: EventFilter;
  /** Most live events held for the reader; the replay it started with does not count. */
  limit: number;
  /** Called when the queue goes from empty to not empty: the reader should take(). */
  onReady: () => void;
  makeGap: GapFactory;
  detach: (subscription: Subscription) => void;
}

export class Subscription {
  private queue: Entry[] = [];
  private queuedEvents = 0;
  /** Replayed events still at the head of the queue: room beyond the limit. */
  private replayLeft = 0;
  private droppedTotal = 0;
  private closed = false;

  constructor(private readonly options: SubscriptionOptions) {}

  /** Events dropped for this reader so far. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Entries waiting to be taken. */
  get pending(): number {
    return this.queue.length;
  }

  /** The replay (and a gap for what fell out of the ring) goes in first, whatever its length. */
  seed(entries: readonly SvcEvent[], fellOut: Gap | null): void {
    if (fellOut) this.queue.push(fellOut);
    for (const event of entries) if (matches(this.options.filter, event)) this.queue.push(event);
    this.replayLeft = this.queue.length - (fellOut ? 1 : 0);
    this.queuedEvents = this.replayLeft;
  }

  /** A live event from the bus. */
  offer(event: SvcEvent): void {
    if (this.closed || !matches(this.options.filter, event)) return;
    const wasEmpty = this.queue.length === 0;
    if (this.queuedEvents - this.replayLeft < this.options.limit) {
      this.queue.push(event);
      this.queuedEvents++;
    } else {
      this.drop(event.id);
    }
    if (wasEmpty) this.options.onReady();
  }

  private drop(id: number): void {
    this.droppedTotal++;
    const last = this.queue.at(-1);
    if (last && 'gap' in last) {
      last.dropped++;
      last.lastId = id;
    } else {
      this.queue.push({ gap: true, dropped: 1, lastId: id });
    }
  }

  /** Up to `max` entries, oldest first; a run of dropped events comes out as one events.gap. */
  take(max = Infinity): SvcEvent[] {
    const entries = this.queue.length <= max ? this.queue : this.queue.slice(0, max);
    this.queue = entries === this.queue ? [] : this.queue.slice(max);
    const out = entries.map((entry) => ('gap' in entry ? this.options.makeGap(entry.dropped, entry.lastId) : entry));
    const events = entries.filter((entry) => !('gap' in entry)).length;
    this.queuedEvents -= events;
    this.replayLeft = Math.max(0, this.replayLeft - events);
    return out;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.options.detach(this);
  }
}
