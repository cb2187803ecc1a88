// Single-flight for identical streams on a cold slot (SPEC.md, Streaming): requests with
// the same key that arrive while the first is still running share its one upstream call.
// Every subscriber gets every byte from the start (chunks are kept while the flight runs),
// one subscriber leaving does not cancel the others, and the upstream call is aborted only
// when the last one leaves. A finished flight is forgotten: later requests start anew.

export interface FlightHead {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

export interface FlightSource<H extends FlightHead = FlightHead> {
  head: H;
  body: AsyncIterable<Buffer | Uint8Array>;
}

type Listener = () => void;

class Flight<H extends FlightHead> {
  readonly chunks: Buffer[] = [];
  head: H | undefined;
  done = false;
  error: unknown;
  subscribers = 0;
  private readonly listeners = new Set<Listener>();
  readonly abort = new AbortController();

  constructor(private readonly forget: () => void) {}

  async run(start: (signal: AbortSignal) => Promise<FlightSource<H>>): Promise<void> {
    try {
      const source = await start(this.abort.signal);
      this.head = source.head;
      this.notify();
      for await (const chunk of source.body) {
        this.chunks.push(Buffer.from(chunk));
        this.notify();
      }
    } catch (error) {
      this.error = error;
    } finally {
      this.done = true;
      this.forget();
      this.notify();
    }
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

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

export interface FlightSubscription<H extends FlightHead = FlightHead> {
  /** Whether this subscriber started the flight (others joined it). */
  leader: boolean;
  /** The upstream's status and headers; rejects with the upstream's error. */
  head(): Promise<H>;
  /** Every chunk from the first, then live ones; throws the upstream's error at the point it broke. */
  body(): AsyncIterable<Buffer>;
  /** Stop receiving; the last subscriber to leave aborts the upstream call. */
  leave(): void;
}

export class StreamFlights<H extends FlightHead = FlightHead> {
  private readonly flights = new Map<string, Flight<H>>();

  /** Join the running flight for `key`, or start one with `start`. */
  join(key: string, start: (signal: AbortSignal) => Promise<FlightSource<H>>): FlightSubscription<H> {
    let flight = this.flights.get(key);
    const leader = !flight;
    if (!flight) {
      const created: Flight<H> = new Flight<H>(() => this.flights.get(key) === created && this.flights.delete(key));
      flight = created;
      this.flights.set(key, created);
      void created.run(start);
    }
    return subscribe(flight, leader);
  }

  /** Flights in progress (for tests and metrics). */
  get size(): number {
    return this.flights.size;
  }
}

function subscribe<H extends FlightHead>(flight: Flight<H>, leader: boolean): FlightSubscription<H> {
  flight.subscribers++;
  let left = false;
  return {
    leader,
    async head() {
      while (!flight.head && !flight.done) await flight.wait();
      if (!flight.head) throw flight.error ?? new Error('the upstream ended without answering');
      return flight.head;
    },
    async *body() {
      for (let next = 0; ; ) {
        while (next < flight.chunks.length) yield flight.chunks[next++]!;
        if (flight.done) break;
        await flight.wait();
      }
      if (flight.error) throw flight.error;
    },
    leave() {
      if (left) return;
      left = true;
      flight.subscribers--;
      if (flight.subscribers === 0 && !flight.done) flight.abort.abort();
    },
  };
}
