// Identical streams that find their slot cold share one upstream call (docs/routing.md, "On-demand loading and streaming"):
// the flight counts one request in flight on the slot however many clients share it, is
// metered once (timed from when the client that started it arrived), and each client
// leaving only leaves. See single-flight.ts for the fan-out itself and its memory bound.
// Only requests that found the slot cold join flights, so a flight can still be joined
// while such requests wait for its slot (ColdWaiters); after that it keeps no replay.
import { type ErrorAnswer, errorResult, readErrorAnswer } from './error-answer.js';
import { callUpstream, checkContentType, relayedHeaders, sseErrorEvent, upstreamError, type UpstreamPools } from './forward.js';
import type { MeterTap, SlotMetrics } from './metrics.js';
import type { DispatchResult } from './result.js';
import type { FlightHead, FlightSource, FlightSubscription, StreamFlights } from './single-flight.js';
import type { SlotSupervisor } from '../slots/supervisor.js';
import { DispatchError, SvcError } from '../protocol/errors.js';
import type { DispatchRequest } from './types.js';
import { whenGone } from './client-gone.js';

/** Longest wait for a local engine's headers, and between its body chunks. */
export const LOCAL_TIMEOUT_MS = 600_000;

/** A flight's head: the engine's status and headers, or its error answer in the envelope. */
export interface ColdHead extends FlightHead {
  failure?: ErrorAnswer;
}

/** Cold stream requests still waiting for their slot, per slot: the ones that may yet join a flight. */
export class ColdWaiters {
  private readonly counts = new Map<string, number>();

  /** Count one; the returned function (idempotent) stops counting it. */
  add(slot: string): () => void {
    this.counts.set(slot, (this.counts.get(slot) ?? 0) + 1);
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      const left = (this.counts.get(slot) ?? 1) - 1;
      if (left > 0) this.counts.set(slot, left);
      else this.counts.delete(slot);
    };
  }

  waiting(slot: string): boolean {
    return this.counts.has(slot);
  }
}

export interface ColdStreamDeps {
  supervisor: SlotSupervisor;
  metrics: SlotMetrics;
  pools: UpstreamPools;
  flights: StreamFlights<ColdHead>;
  coldWaiters: ColdWaiters;
}

export interface ColdStream {
  slot: string;
  model: string;
  origin: string;
  /** When the client that joins arrived (monotonic ms, for the meter). */
  startedAt: number;
  /** Stops counting this request among the slot's cold waiters (called once it joined). */
  joined: () => void;
}

/** The error code a failed request to a slot is counted under (metrics). */
export function failureCode(error: unknown, slot: string): string {
  return error instanceof SvcError ? error.code : upstreamError(error, { slot }).code;
}

/** Join (or start) the one upstream call for this stream; the result relays it to this caller. */
export async function shareColdStream(deps: ColdStreamDeps, stream: ColdStream, request: DispatchRequest, onEnd?: (broken: SvcError | undefined) => void): Promise<DispatchResult> {
  const { slot } = stream;
  const path = `/v1${request.upstreamPath}`;
  const body = request.body(stream.model, { kind: 'slot', slot, model: stream.model, via: 'slot-name' });
  const subscription = deps.flights.join(`${slot}\n${path}\n${body.toString()}`, async (flightSignal): Promise<FlightSource<ColdHead>> => {
    const release = deps.supervisor.acquire(slot);
    const tap = deps.metrics.start(slot, stream.startedAt);
    try {
      const upstream = await callUpstream(deps.pools, {
        origin: stream.origin, path, headers: { 'content-type': request.contentType }, body, signal: flightSignal,
        headersTimeoutMs: LOCAL_TIMEOUT_MS, bodyTimeoutMs: LOCAL_TIMEOUT_MS, target: { slot },
      });
      checkContentType(upstream, request.accepts, { slot });
      tap.head(upstream.statusCode, upstream.headers['content-type']);
      if (upstream.statusCode >= 400) {
        const failure = await readErrorAnswer(upstream, { slot });
        tap.end('ok'); // counted as http_<status>
        release();
        return { head: { statusCode: failure.status, headers: {}, failure }, body: noBody() };
      }
      return { head: upstream, body: metered(upstream.body, release, tap, flightSignal) };
    } catch (error) {
      release();
      tap.end(flightSignal.aborted ? 'cancelled' : 'error', failureCode(error, slot));
      throw error;
    }
  }, { mayJoinLater: () => deps.coldWaiters.waiting(slot) });
  stream.joined();
  const leave = () => subscription.leave();
  whenGone(request.signal, leave);
  let head: ColdHead;
  try {
    head = await subscription.head();
  } catch (error) {
    leave();
    throw error;
  }
  if (head.failure) {
    leave();
    return errorResult(head.failure);
  }
  return { status: head.statusCode, headers: relayedHeaders(head, request.timing), body: sharedBody(subscription, slot, onEnd) };
}

/** This caller's copy of the flight's body; falling too far behind ends it with an error event. */
async function* sharedBody(subscription: FlightSubscription<ColdHead>, slot: string, onEnd?: (broken: SvcError | undefined) => void): AsyncGenerator<Uint8Array> {
  let broken: SvcError | undefined;
  try {
    yield* subscription.body();
  } catch (error) {
    // Dropped for falling behind (dispatch.client_too_slow), or the engine broke off.
    broken = error instanceof SvcError && error.code === 'dispatch.client_too_slow'
      ? new DispatchError(error.code, error.message, { ...error.details, slot })
      : upstreamError(error, { slot });
  } finally {
    subscription.leave();
    onEnd?.(broken);
  }
  if (broken) yield Buffer.from(sseErrorEvent(broken.toEnvelope()));
}

async function* noBody(): AsyncIterable<Buffer> {}

/** The flight's upstream body, metered once and releasing the slot when it ends. */
async function* metered(body: AsyncIterable<Buffer | Uint8Array>, release: () => void, tap: MeterTap, signal: AbortSignal): AsyncIterable<Buffer | Uint8Array> {
  let complete = false;
  try {
    for await (const chunk of body) {
      tap.chunk(chunk);
      yield chunk;
    }
    complete = true;
  } catch (error) {
    tap.end(signal.aborted ? 'cancelled' : 'error', failureCode(error, tap.slot));
    throw error;
  } finally {
    tap.end(complete ? 'ok' : 'cancelled');
    release();
  }
}
