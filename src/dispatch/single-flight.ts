// Single-flight for identical streams on a cold slot (docs/routing.md, "On-demand loading and streaming"): requests with
// the same key that arrive while the first is still running share its one upstream call.
// One subscriber leaving does not cancel the others; the upstream call is aborted only when
// the last one leaves. A finished flight is forgotten: later requests start anew.
//
// Memory is bounded by FLIGHT_BOUND_BYTES per flight:
// - Chunks are kept by reference (the upstream's own buffers, never copied) and only as long
//   as a subscriber still has to take them: what every subscriber took is dropped at once.
//   A flight with one subscriber and no possible joiner keeps nothing once it took a chunk.
//   (A chunk may be a view into the socket's read buffer: the bytes counted are the chunk's.)
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
import { Flight, FLIGHT_BOUND_BYTES, type FlightHead, type FlightSource, type JoinOptions } from './flight.js';

export { FLIGHT_BOUND_BYTES, type FlightHead, type FlightSource, type JoinOptions } from './flight.js';

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
