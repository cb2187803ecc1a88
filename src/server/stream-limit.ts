// A bound on open server-sent event streams (the event stream, followed engine logs, pull
// progress). Each holds a socket, timers and a subscription for as long as the client
// keeps it, so without a bound any client could hold them until file descriptors or
// memory ran out (issue 22). One cap for the gateway and a smaller one per client address,
// so one client cannot take every stream; a new stream past either is a 503 with
// Retry-After, and the streams already open are never cut.
import { clientKeys } from '../lib/addresses.js';
import { SystemError } from '../protocol/errors.js';

export interface StreamLimitOptions {
  /** Streams open at once across all clients. */
  readonly total: number;
  /** Streams open at once from one client address. */
  readonly perClient: number;
}

/** A dashboard holds one or two streams and a CLI follow one: far above any real use, far below a file-descriptor limit. */
export const DEFAULT_STREAM_LIMIT: StreamLimitOptions = { total: 256, perClient: 32 };

/** A refused client may retry this soon (streams are long-lived: a moment, not a backoff). */
const RETRY_AFTER_S = 5;

export class StreamLimit {
  private open = 0;
  private readonly byClient = new Map<string, number>();

  constructor(private readonly options: StreamLimitOptions = DEFAULT_STREAM_LIMIT) {}

  /** Count a new stream from `client`; the returned function releases it (once, however often called). */
  admit(client: string): () => void {
    const key = clientKeys(client).address;
    const mine = this.byClient.get(key) ?? 0;
    if (this.open >= this.options.total) throw refusal('gateway', this.options.total);
    if (mine >= this.options.perClient) throw refusal('client', this.options.perClient);
    this.open += 1;
    this.byClient.set(key, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      const left = (this.byClient.get(key) ?? 1) - 1;
      if (left === 0) this.byClient.delete(key);
      else this.byClient.set(key, left);
    };
  }
}

function refusal(scope: 'gateway' | 'client', limit: number): SystemError {
  const whose = scope === 'gateway' ? 'the gateway has' : 'this client has';
  return new SystemError('system.too_many_streams', `${whose} ${limit} event streams open, the most allowed; close one or retry in ${RETRY_AFTER_S} s`, {
    scope,
    limit,
    retry_after_s: RETRY_AFTER_S,
  });
}
