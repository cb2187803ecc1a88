// Making a slot ready for a request (docs/routing.md, "On-demand loading and streaming": "A request arriving when a slot is
// ready but still finishing warm-up keeps the connection open rather than returning 503").
// A stream that has to wait longer than KEEPALIVE_AFTER_MS gets its 200 head and SSE
// comments, so proxies and clients keep the connection open while the engine loads.
import { SlotError } from '../protocol/errors.js';
import type { ReadySlot, SlotSupervisor } from '../slots/supervisor.js';
import type { ClientExchange } from './types.js';

/** A stream whose slot is not ready this soon gets SSE comments while it waits. */
export const KEEPALIVE_AFTER_MS = 1_000;
const KEEPALIVE_EVERY_MS = 5_000;

/**
 * Make the slot ready; a stream that has to wait gets SSE comments so proxies keep it open.
 * `gone.signal` is read only when the slot has to load (a ready slot needs none).
 */
export async function waitForSlot(supervisor: SlotSupervisor, slot: string, stream: boolean, client: ClientExchange, gone: { readonly signal: AbortSignal }): Promise<ReadySlot> {
  const view = supervisor.routingOf(slot);
  if (view.state === 'error' && view.last_error?.code === 'slot.crash_loop') {
    throw new SlotError('slot.not_ready', `slot ${slot} is in error after repeated crashes; \`svc slot load ${slot}\` tries again`, { slot, state: view.state, last_error: view.last_error });
  }
  if (view.state === 'ready') return supervisor.ensureReady(slot);
  const ready = supervisor.ensureReady(slot, gone.signal);
  if (!stream) return ready;
  let timer: NodeJS.Timeout | undefined;
  const settled = ready.then(() => true, () => true);
  const early = await Promise.race([settled, new Promise<false>((r) => (timer = setTimeout(() => r(false), KEEPALIVE_AFTER_MS)))]);
  clearTimeout(timer);
  if (!early) {
    client.takeOver();
    const res = client.res;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.write(`: svc: loading slot ${slot}\n\n`);
    const keepalive = setInterval(() => res.write(`: svc: still loading slot ${slot}\n\n`), KEEPALIVE_EVERY_MS);
    await settled;
    clearInterval(keepalive);
  }
  return ready;
}
