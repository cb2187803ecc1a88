// One flight of single-flight.ts: the upstream call shared by identical cold streams, the
// chunks it holds (by reference, only until every subscriber took them), and each
// subscriber's place. The rules and their reasons are in single-flight.ts.
import { DispatchError } from '../protocol/errors.js';

/** Most bytes a flight holds: its replay window, and how far a subscriber may lag. */
export const FLIGHT_BOUND_BYTES = 1024 * 1024;

export interface FlightHead {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface FlightSource<H extends FlightHead = FlightHead> {
  head: H;
  body: AsyncIterable<Buffer | Uint8Array>;
}

export interface JoinOptions {
  /** Whether another request could still join this flight later (read as chunks come). */
  mayJoinLater?: () => boolean;
  /** The bound, for tests; FLIGHT_BOUND_BYTES otherwise. */
  boundBytes?: number;
}

/** One subscriber's place: the next chunk it takes, and the bytes it took. */
export interface Place {
  next: number;
  taken: number;
  dropped?: DispatchError;
  left?: boolean;
}

/** One shared upstream call and its subscribers' places in it. */
export class Flight<H extends FlightHead> {
  head: H | undefined;
  done = false;
  error: unknown;
  readonly abort = new AbortController();
  private readonly kept: Buffer[] = [];
  private first = 0; // index in `kept` of the oldest chunk still held
  private base = 0; // stream index of that chunk
  private total = 0; // chunks received so far
  private baseBytes = 0; // stream offset of that chunk
  private endBytes = 0; // bytes received so far
  private open = true; // still holds its beginning for late joiners
  private readonly places = new Set<Place>();
  private readonly listeners = new Set<() => void>();

  /** `unlist` once it cannot be joined any more; `retire` once it holds nothing for anyone. */
  constructor(private readonly unlist: () => void, private readonly retire: () => void, private readonly options: Required<JoinOptions>) {}

  get retainedBytes(): number {
    return this.endBytes - this.baseBytes;
  }

  get joinable(): boolean {
    return this.open && !this.done && this.options.mayJoinLater();
  }

  async run(start: (signal: AbortSignal) => Promise<FlightSource<H>>): Promise<void> {
    try {
      const source = await start(this.abort.signal);
      this.head = source.head;
      this.notify();
      for await (const chunk of source.body) {
        this.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        while (!this.hungry() && !this.abort.signal.aborted) await this.wait();
        // Everyone left: stop reading (leaving the loop closes the body).
        if (this.abort.signal.aborted) throw this.abort.signal.reason;
      }
    } catch (error) {
      this.error = error;
    } finally {
      this.done = true;
      this.unlist();
      this.trim();
      this.notify();
      if (this.places.size === 0) this.retire();
    }
  }

  subscribe(): Place {
    const place: Place = { next: this.base, taken: this.baseBytes };
    this.places.add(place);
    return place;
  }

  /** The subscriber's next chunk, or undefined when it has taken everything so far. */
  take(place: Place): Buffer | undefined {
    if (place.next >= this.total) return undefined;
    const chunk = this.kept[this.first + place.next - this.base]!;
    const wasOldest = place.next === this.base;
    place.next++;
    place.taken += chunk.length;
    if (wasOldest || this.open) this.trim();
    if (place.next === this.total) this.notify(); // the reader may pull the next one
    return chunk;
  }

  leave(place: Place): void {
    place.left = true;
    if (!this.places.delete(place)) return;
    if (this.places.size === 0 && !this.done) this.abort.abort();
    this.trim();
    this.notify();
    if (this.places.size === 0 && this.done) this.retire();
  }

  wait(): Promise<void> {
    return new Promise((resolve) => {
      const listener = () => {
        this.listeners.delete(listener);
        resolve();
      };
      this.listeners.add(listener);
    });
  }

  private push(chunk: Buffer): void {
    this.kept.push(chunk);
    this.total++;
    this.endBytes += chunk.length;
    // Behind = what it had not taken before this chunk came: the fastest subscriber is at 0
    // (the chunk was pulled for it), so only those lagging behind the others are dropped.
    for (const place of this.places) {
      const behind = this.endBytes - chunk.length - place.taken;
      if (behind <= this.options.boundBytes) continue;
      place.dropped = new DispatchError('dispatch.client_too_slow', `this client fell ${behind} bytes behind the others sharing the stream (at most ${this.options.boundBytes}); read faster, or ask again`, { behind_bytes: behind, bound_bytes: this.options.boundBytes });
      this.places.delete(place);
    }
    this.trim();
    this.notify();
  }

  /** A subscriber has taken everything: pull the next chunk. */
  private hungry(): boolean {
    for (const place of this.places) if (place.next === this.total) return true;
    return false;
  }

  /** Drop the chunks every subscriber took, once nobody can join any more. */
  private trim(): void {
    if (this.open && (this.done || this.endBytes > this.options.boundBytes || !this.options.mayJoinLater())) this.open = false;
    if (this.open) return;
    let keepFrom = this.total;
    for (const place of this.places) keepFrom = Math.min(keepFrom, place.next);
    for (; this.base < keepFrom; this.base++) {
      this.baseBytes += this.kept[this.first]!.length;
      this.kept[this.first++] = undefined as unknown as Buffer;
    }
    // Compact now and then, so the array does not grow with the stream.
    if (this.first > 1024 && this.first * 2 > this.kept.length) {
      this.kept.splice(0, this.first);
      this.first = 0;
    }
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
