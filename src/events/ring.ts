// The newest events, for replay: a fixed array written round and round. Ids are consecutive,
// so the event with id N sits at a known index and "after id N" needs no search.
import type { SvcEvent } from '../protocol/events.js';

export class EventRing {
  private readonly slots: (SvcEvent | undefined)[];
  private newest = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`ring capacity must be a positive integer; got ${capacity}`);
    this.slots = new Array<SvcEvent | undefined>(capacity);
  }

  /** Events must arrive with ids 1, 2, 3, ... */
  push(event: SvcEvent): void {
    if (event.id !== this.newest + 1) throw new Error(`event id ${event.id} does not follow ${this.newest}`);
    this.slots[(event.id - 1) % this.capacity] = event;
    this.newest = event.id;
  }

  /** The id of the newest event ever pushed (0 before the first). */
  get newestId(): number {
    return this.newest;
  }

  /** The id of the oldest event still held (newestId + 1 when empty). */
  get oldestId(): number {
    return Math.max(1, this.newest - this.capacity + 1);
  }

  /** Held events with id > since, oldest first. */
  after(since: number): SvcEvent[] {
    const out: SvcEvent[] = [];
    for (let id = Math.max(since + 1, this.oldestId); id <= this.newest; id++) out.push(this.slots[(id - 1) % this.capacity]!);
    return out;
  }
}
