// Server-Timing on every /v1 answer (docs/performance.md): `svc;dur=<ms>` is the gateway's own
// time before the request left for the upstream (parsing, resolution, admission), with the
// time spent waiting for a slot to start taken out and reported as `load;dur=<ms>`. For an
// answer the gateway gives itself (an error before any upstream was called), svc;dur is its
// whole time. Streams carry it in the head, as their first bytes leave.
import { performance } from 'node:perf_hooks';
import { serverTimingValue } from '../protocol/server-timing.js';

/** The timing marks of one exchange, in performance.now() milliseconds. */
export interface ExchangeTiming {
  arrivedAt: number;
  /** Spent waiting for a slot to be ready (0 when it was). */
  loadMs: number;
  /** When the request was handed to the upstream's pool (0 before). */
  sentAt: number;
}

/** The header's value: the gateway's own time, and the slot load when there was one. */
export function serverTiming(arrivedAt: number, timing?: Pick<ExchangeTiming, 'loadMs' | 'sentAt'>): string {
  const loadMs = timing?.loadMs ?? 0;
  const end = timing?.sentAt || performance.now();
  return serverTimingValue(end - arrivedAt - loadMs, loadMs);
}
