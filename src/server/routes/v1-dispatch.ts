// What every /v1 POST route shares: resolving `model` to a slot or a remote upstream, making
// a slot ready (holding the connection while it loads), the one set of keep-alive undici
// pools, forwarding to the target and relaying its answer byte for byte, and ending a
// response that already started when the upstream breaks off (docs/routing.md).
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { slotCandidates } from '../../dispatch/candidates.js';
import { callUpstream, checkContentType, ClientGone, relayBody, relayHead, sseErrorEvent, upstreamError, UpstreamPools } from '../../dispatch/forward.js';
import type { MeterTap } from '../../dispatch/metrics.js';
import { StreamFlights } from '../../dispatch/single-flight.js';
import { npuDirectRoute } from '../../dispatch/npu-route.js';
import { resolveTarget } from '../../dispatch/resolve.js';
import type { Resolution, V1Route } from '../../dispatch/types.js';
import { DispatchError, SlotError, SvcError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';

/** A stream whose slot is not ready this soon gets SSE comments while it waits. */
const KEEPALIVE_AFTER_MS = 1_000;
const KEEPALIVE_EVERY_MS = 5_000;
/** Longest wait for a local engine's headers, and between its body chunks. */
export const LOCAL_TIMEOUT_MS = 600_000;

export type DispatchTarget = Extract<Resolution, { kind: 'slot' | 'upstream' }>;

const POOLS = new WeakMap<FastifyInstance, UpstreamPools>();

/** One UpstreamPools per app, shared by every /v1 route module, closed with the app. */
export function sharedPools(app: FastifyInstance): UpstreamPools {
  let pools = POOLS.get(app);
  if (!pools) {
    const created = new UpstreamPools();
    app.addHook('onClose', () => created.close());
    POOLS.set(app, created);
    pools = created;
  }
  return pools;
}

export async function resolve(ctx: ServerContext, model: string, route: V1Route): Promise<DispatchTarget> {
  const slots = slotCandidates(ctx.config, ctx.supervisor.list({ memory: false }));
  let result = resolveTarget(model, route, slots, [], { suggest: false });
  // Remote model lists are only consulted (and fetched when cold) for ids no slot serves.
  if (result.kind === 'not_found') result = resolveTarget(model, route, slots, await ctx.upstreams.catalogs());
  if (result.kind === 'not_found') {
    throw new DispatchError('model.not_found', `no slot, svc/* name or upstream serves the model "${model}"`, { model, candidates: result.candidates });
  }
  if (result.kind === 'wrong_type') {
    throw new DispatchError('dispatch.wrong_slot_type', `slot ${result.slot} is a ${result.slotType} slot; this route needs a ${result.accepts.join(' or ')} slot`, { slot: result.slot, slot_type: result.slotType, route: result.route, accepts: result.accepts });
  }
  // NPU embedding and transcription slots are served by the NPU llm slot's engine.
  return npuDirectRoute(result, route, slots);
}

/**
 * Make the slot ready; a stream that has to wait gets SSE comments so proxies keep it open.
 * `client.signal` is read only when the slot has to load (a ready slot needs none).
 */
export async function waitForSlot(ctx: ServerContext, slot: string, stream: boolean, reply: FastifyReply, client: { readonly signal: AbortSignal }) {
  const view = ctx.supervisor.view(slot, { memory: false });
  if (view.state === 'error' && view.last_error?.code === 'slot.crash_loop') {
    throw new SlotError('slot.not_ready', `slot ${slot} is in error after repeated crashes; \`svc slot load ${slot}\` tries again`, { slot, state: view.state, last_error: view.last_error });
  }
  if (view.state === 'ready') return ctx.supervisor.ensureReady(slot);
  const ready = ctx.supervisor.ensureReady(slot, client.signal);
  if (!stream) return ready;
  let timer: NodeJS.Timeout | undefined;
  const settled = ready.then(() => true, () => true);
  const early = await Promise.race([settled, new Promise<false>((r) => (timer = setTimeout(() => r(false), KEEPALIVE_AFTER_MS)))]);
  clearTimeout(timer);
  if (!early) {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.write(`: svc: loading slot ${slot}\n\n`);
    const keepalive = setInterval(() => res.write(`: svc: still loading slot ${slot}\n\n`), KEEPALIVE_EVERY_MS);
    await settled;
    clearInterval(keepalive);
  }
  return ready;
}

/** After bytes went out: a stream ends with one error event; anything else just ends. */
export function endWithError(res: ServerResponse, error: SvcError, stream: boolean): void {
  if (res.destroyed) return;
  if (!res.headersSent) {
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(error.toEnvelope()));
    return;
  }
  if (stream) res.write(sseErrorEvent(error.toEnvelope()));
  res.end();
}

const FLIGHTS = new StreamFlights();

/** The error code a failed request to a slot is counted under (metrics). */
function failureCode(error: unknown, slot: string): string {
  return error instanceof SvcError ? error.code : upstreamError(error, { slot }).code;
}

/**
 * Join (or start) the one upstream call for this stream. The flight counts one request in
 * flight on the slot, however many clients share it; each client leaving only leaves. It is
 * metered once, as one request, timed from when the client that started it arrived.
 */
async function shareColdStream(ctx: ServerContext, pools: UpstreamPools, origin: string, target: Extract<DispatchTarget, { kind: 'slot' }>, forwarded: Forwarded, reply: FastifyReply, signal: AbortSignal, startedAt: number): Promise<void> {
  const path = `/v1${forwarded.upstreamPath}`;
  const body = forwarded.body(target.model);
  const subscription = FLIGHTS.join(`${target.slot}\n${path}\n${body.toString()}`, async (flightSignal) => {
    const release = ctx.supervisor.acquire(target.slot);
    const tap = ctx.metrics.start(target.slot, startedAt);
    try {
      const upstream = await callUpstream(pools, {
        origin, path, headers: { 'content-type': forwarded.contentType }, body, signal: flightSignal,
        headersTimeoutMs: LOCAL_TIMEOUT_MS, bodyTimeoutMs: LOCAL_TIMEOUT_MS, target: { slot: target.slot },
      });
      checkContentType(upstream, forwarded.accepts, { slot: target.slot });
      tap.head(upstream.statusCode, upstream.headers['content-type']);
      return { head: upstream, body: metered(upstream.body, release, tap, flightSignal) };
    } catch (error) {
      release();
      tap.end(flightSignal.aborted ? 'cancelled' : 'error', failureCode(error, target.slot));
      throw error;
    }
  });
  signal.addEventListener('abort', () => subscription.leave(), { once: true });
  try {
    const head = await subscription.head();
    if (!reply.sent) reply.hijack();
    if (!reply.raw.headersSent) relayHead(reply.raw, head);
    await relayBody(reply.raw, subscription.body());
    reply.raw.end();
  } finally {
    subscription.leave();
  }
}

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

export interface Forwarded {
  /** The engine path under /v1, e.g. `/audio/speech` (a remote upstream's base path goes first). */
  upstreamPath: string;
  /** The request's Content-Type, sent as it is (a multipart boundary included). */
  contentType: string;
  /** Content-Types a 2xx answer may have (others are dispatch.upstream_bad_response); undefined = any. */
  accepts?: RegExp;
  /** Whether the client asked for a stream (SSE keep-alive while a slot loads, final error event). */
  stream: boolean;
  /**
   * The bytes to send, given the model id the target expects: a slot's backing model id, or
   * an upstream's id with any provider model_prefix removed. Called once the slot is ready.
   */
  body(upstreamModel: string): string | Buffer;
}

/**
 * Send a resolved request to its target and relay the answer: for a slot, make it ready and
 * count the request in flight; for a remote upstream, add its headers (the API key) and
 * use its timeout. Status, meaningful headers and body are relayed as they arrive; the
 * upstream request is aborted when the client leaves.
 */
export async function forwardToTarget(ctx: ServerContext, pools: UpstreamPools, target: DispatchTarget, forwarded: Forwarded, reply: FastifyReply): Promise<void> {
  const gone = new ClientGone();
  const res = reply.raw;
  res.once('close', () => res.writableEnded || gone.abort());
  let release: (() => void) | undefined;
  // Requests to a slot are metered (counted on the side; no byte changes): see dispatch/metrics.ts.
  let tap = target.kind === 'slot' ? ctx.metrics.start(target.slot) : undefined;
  const targetDetails = target.kind === 'slot' ? { slot: target.slot } : { upstream: target.upstream };
  try {
    let origin: string;
    let path: string;
    let headers: Record<string, string> = { 'content-type': forwarded.contentType };
    let timeoutMs = LOCAL_TIMEOUT_MS;
    let model: string;
    if (target.kind === 'slot') {
      // A request for an LLM GPU slot takes the GPU back from image mode (slots/gpu-arbiter.ts).
      if (ctx.arbiter.mode === 'image') await ctx.arbiter.beforeInference(target.slot);
      // Identical streams that find their slot cold share one upstream call (SPEC.md, Streaming).
      const cold = forwarded.stream && ctx.supervisor.view(target.slot, { memory: false }).state !== 'ready';
      const ready = await waitForSlot(ctx, target.slot, forwarded.stream, reply, gone);
      if (cold) {
        const startedAt = tap!.startedAt;
        tap = undefined; // the shared flight meters itself, once
        return await shareColdStream(ctx, pools, ready.baseUrl, target, forwarded, reply, gone.signal, startedAt);
      }
      release = ctx.supervisor.acquire(target.slot);
      origin = ready.baseUrl;
      path = `/v1${forwarded.upstreamPath}`;
      model = target.model;
    } else {
      const endpoint = ctx.upstreams.endpoint(target.upstream, target.model);
      const base = new URL(endpoint.baseUrl);
      origin = base.origin;
      path = `${base.pathname.replace(/\/+$/, '')}${forwarded.upstreamPath}`;
      headers = { ...endpoint.headers, ...headers };
      timeoutMs = endpoint.timeoutMs ?? LOCAL_TIMEOUT_MS;
      model = ctx.upstreams.upstreamModel(target.upstream, target.model);
    }
    const upstream = await callUpstream(pools, {
      origin, path, headers, body: forwarded.body(model), signal: gone,
      headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs,
      target: targetDetails,
    });
    checkContentType(upstream, forwarded.accepts, targetDetails);
    tap?.head(upstream.statusCode, upstream.headers['content-type']);
    if (!reply.sent) reply.hijack();
    if (!res.headersSent) relayHead(res, upstream);
    await relayBody(res, upstream.body, tap);
    tap?.end(res.destroyed ? 'cancelled' : 'ok');
    res.end();
  } catch (error) {
    if (gone.aborted && res.destroyed) {
      tap?.end('cancelled');
      return; // the client left; nothing to tell
    }
    if (!reply.sent) {
      if (tap) tap.end('error', failureCode(error, tap.slot));
      throw error; // nothing written yet: the error handler renders it
    }
    // Past the headers a failure is the upstream breaking off (e.g. its engine died).
    const failure = upstreamError(error, targetDetails);
    tap?.end('error', failure.code);
    endWithError(res, failure, forwarded.stream);
  } finally {
    release?.();
  }
}
