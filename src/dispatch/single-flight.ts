// Single-flight for identical streams on a cold slot (SPEC.md, Streaming): requests with
// the same key that arrive while the first is still running share its one upstream call.
// One subscriber leaving does not cancel the others; the upstream call is aborted only when
// the last one leaves. A finished flight is forgotten: later requests start anew.
//
// Memory is bounded by FLIGHT_BOUND_BYTES per flight:
// - Chunks are kept by reference (the upstream's own buffers, never copied) and only as long
//   as a subscriber still has to take them: what every subscriber took is dropped at once.
//   A flight with one subscriber and no possible joiner keeps nothing once it took a chunk.
// - Late joiners get a replay from the first byte, so while one could still come (the
//   caller's `mayJoinLater`: the dispatcher says whether cold requests for the slot are still
//   waiting for it), the flight keeps its beginning. The trade-off: during that window a
//   single subscriber's chunks stay referenced. The window closes, for good, when nobody can
//   join any more, when the beginning would exceed the bound, or when the flight ends; a
//   request arriving after that is not joined to it and starts its own flight.
// - The upstream is read at the pace of the fastest subscriber: the next chunk is pulled
//   only when some subscriber has taken everything so far, so the engine is never read
//   faster than any client can take it. A subscriber that falls more than the bound behind
//   (bytes it has not taken when the next chunk arrives for the fastest) is dropped: its
//   body throws dispatch.client_too_slow (the caller ends that response with one SSE error
//   event) and the others go on at their own pace. Held bytes never exceed the bound plus
//   the one chunk being added.
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
interface Place {
  next: number;
  taken: number;
  dropped?: DispatchError;
  left?: boolean;
}

class Flight<H extends FlightHead> {
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

export interface FlightSubscription<H extends FlightHead = FlightHead> {
  /** Whether this subscriber started the flight (others joined it). */
  leader: boolean;
  /** The upstream's status and headers; rejects with the upstream's error. */
  head(): Promise<H>;
  /**
   * Every chunk from the first, then live ones; throws the upstream's error at the point it
   * broke, or dispatch.client_too_slow when this subscriber fell too far behind.
   */
  body(): AsyncIterable<Buffer>;
  /** Stop receiving; the last subscriber to leave aborts the upstream call. */
  leave(): void;
}

export class StreamFlights<H extends FlightHead = FlightHead> {
  private readonly flights = new Map<string, Flight<H>>();
  private readonly running = new Set<Flight<H>>();

  /** Join the running flight for `key` while it can be joined, or start one with `start`. */
  join(key: string, start: (signal: AbortSignal) => Promise<FlightSource<H>>, options: JoinOptions = {}): FlightSubscription<H> {
    const found = this.flights.get(key);
    if (found?.joinable) return subscribe(found, false);
    const flight: Flight<H> = new Flight<H>(() => {
      if (this.flights.get(key) === flight) this.flights.delete(key);
    }, () => this.running.delete(flight), { mayJoinLater: options.mayJoinLater ?? (() => true), boundBytes: options.boundBytes ?? FLIGHT_BOUND_BYTES });
    this.flights.set(key, flight);
    this.running.add(flight);
    const subscription = subscribe(flight, true);
    void flight.run(start);
    return subscription;
  }

  /** Flights that can still be joined (for tests and metrics). */
  get size(): number {
    return this.flights.size;
  }

  /** Bytes held by all flights, finished ones whose subscribers are still reading included (for tests and metrics). */
  get retainedBytes(): number {
    let bytes = 0;
    for (const flight of this.running) bytes += flight.retainedBytes;
    return bytes;
  }
}

function subscribe<H extends FlightHead>(flight: Flight<H>, leader: boolean): FlightSubscription<H> {
  const place = flight.subscribe();
  return {
    leader,
    async head() {
      while (!flight.head && !flight.done) await flight.wait();
      if (!flight.head) throw flight.error ?? new Error('the upstream ended without answering');
      return flight.head;
    },
    async *body() {
      for (;;) {
        if (place.dropped) throw place.dropped;
        if (place.left) return;
        const chunk = flight.take(place);
        if (chunk) {
          yield chunk;
          continue;
        }
        if (flight.done) break;
        await flight.wait();
      }
      if (flight.error) throw flight.error;
    },
    leave: () => flight.leave(place),
  };
}
