// The Server-Timing header's value on every /v1 answer (docs/performance.md): `svc;dur=<ms>`
// is the gateway's own time, and `load;dur=<ms>` the time it waited for a slot to start, when
// it did. dispatch writes it (dispatch/server-timing.ts measures the times); the dashboard's
// playground reads it.

const ms = (value: number) => (value > 0 ? Math.round(value * 1000) / 1000 : 0);

/** The header's value for the gateway's own time and the slot load (0: none). */
export function serverTimingValue(ownMs: number, loadMs: number): string {
  const own = `svc;dur=${ms(ownMs)}`;
  return loadMs > 0 ? `${own}, load;dur=${ms(loadMs)}` : own;
}
