// Making a slot ready for a request (docs/routing.md, "On-demand loading and streaming": "A request arriving when a slot is
// ready but still finishing warm-up keeps the connection open rather than returning 503").
// A stream that has to wait longer than KEEPALIVE_AFTER_MS gets its 200 head and SSE
// comments at once, so proxies and clients keep the connection open while the engine
// loads; the rest of its answer follows in the same body (loadingResult).
import { SlotError, type SvcError } from '../protocol/errors.js';
import type { ReadySlot, SlotSupervisor } from '../slots/supervisor.js';
import { sseErrorEvent } from './forward.js';
import { discard, type DispatchResult, isStream } from './result.js';

/** A stream whose slot is not ready this soon gets SSE comments while it waits. */
export const KEEPALIVE_AFTER_MS = 1_000;
/** How often a waiting stream hears that the slot is still loading. */
export const KEEPALIVE_EVERY_MS = 5_000;

/** A slot that was not ready within KEEPALIVE_AFTER_MS: the readiness still to come. */
export interface LateSlot {
  late: Promise<ReadySlot>;
}

/**
 * Make the slot ready. A stream that would wait past KEEPALIVE_AFTER_MS is answered a
 * LateSlot instead, for its comments to go out while it waits. `signal` is read only when
 * the slot has to load (a ready slot needs none).
 */
export async function waitForSlot(supervisor: SlotSupervisor, slot: string, stream: boolean, signal: () => AbortSignal | undefined): Promise<ReadySlot | LateSlot> {
  const view = supervisor.routingOf(slot);
  if (view.state === 'error' && view.last_error?.code === 'slot.crash_loop') {
    throw new SlotError('slot.not_ready', `slot ${slot} is in error after repeated crashes; \`svc slot load ${slot}\` tries again`, { slot, state: view.state, last_error: view.last_error });
  }
  if (view.state === 'ready') return supervisor.ensureReady(slot);
  const ready = supervisor.ensureReady(slot, signal());
  if (!stream) return ready;
  const settled = ready.then(() => true, () => true);
  if (await within(settled, KEEPALIVE_AFTER_MS)) return ready;
  return { late: ready };
}

/** Whether `settled` resolves within `ms`. */
async function within(settled: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([settled, new Promise<false>((r) => (timer = setTimeout(() => r(false), ms)))]);
  clearTimeout(timer);
  return inTime;
}

const SSE_HEAD = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/**
 * A stream's answer while its slot loads: the 200 head now, SSE comments until the slot is
 * ready, then the answer `then` gives, in the same body. An error answer or a failure then
 * is one SSE error event (no [DONE]): the head has gone out.
 */
export function loadingResult(slot: string, late: LateSlot, then: (ready: Promise<ReadySlot>) => Promise<DispatchResult>, failure: (error: unknown) => SvcError): DispatchResult {
  return { status: 200, headers: { ...SSE_HEAD }, body: loadingBody(slot, late.late, then, failure) };
}

async function* loadingBody(slot: string, ready: Promise<ReadySlot>, then: (ready: Promise<ReadySlot>) => Promise<DispatchResult>, failure: (error: unknown) => SvcError): AsyncGenerator<Uint8Array> {
  let answer: Promise<DispatchResult> | undefined;
  try {
    yield Buffer.from(`: svc: loading slot ${slot}\n\n`);
    const settled = ready.then(() => true, () => true);
    while (!(await within(settled, KEEPALIVE_EVERY_MS))) yield Buffer.from(`: svc: still loading slot ${slot}\n\n`);
    answer = then(ready);
  } finally {
    // A reader that left while the slot loaded: the answer is still made (and let go), so
    // that the request is counted and the slot released as for any other.
    if (!answer) void then(ready).then((late) => discard(late.body), () => undefined);
  }
  let result: DispatchResult;
  try {
    result = await answer;
  } catch (error) {
    yield Buffer.from(sseErrorEvent(failure(error).toEnvelope()));
    return;
  }
  if (result.envelope) yield Buffer.from(sseErrorEvent(result.envelope));
  else if (isStream(result.body)) yield* result.body;
  else yield Buffer.from(result.body);
}
