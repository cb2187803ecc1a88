// The OpenAI-compatible POST routes: parse the body once, resolve the model to a slot or a
// remote upstream, make the slot ready (holding the connection while it loads), rewrite
// the model id, and relay the upstream's answer byte for byte (docs/routing.md).
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { slotCandidates } from '../../dispatch/candidates.js';
import { callUpstream, relayBody, relayHead, sseErrorEvent, upstreamError, UpstreamPools } from '../../dispatch/forward.js';
import { resolveTarget } from '../../dispatch/resolve.js';
import type { Resolution, V1Route } from '../../dispatch/types.js';
import { DispatchError, RequestError, SlotError, type SvcError } from '../../protocol/errors.js';
import { objectBody } from '../app.js';
import type { ServerContext } from '../context.js';

const ROUTES: ReadonlyArray<{ url: string; route: V1Route; upstreamPath: string }> = [
  { url: '/v1/chat/completions', route: 'chat', upstreamPath: '/chat/completions' },
  { url: '/v1/completions', route: 'completions', upstreamPath: '/completions' },
  { url: '/v1/embeddings', route: 'embeddings', upstreamPath: '/embeddings' },
  // llama-server serves /v1/rerank; /v1/rerankings is the spec's name for the same thing.
  { url: '/v1/rerankings', route: 'rerank', upstreamPath: '/rerank' },
  { url: '/v1/rerank', route: 'rerank', upstreamPath: '/rerank' },
];

/** A stream whose slot is not ready this soon gets SSE comments while it waits. */
const KEEPALIVE_AFTER_MS = 1_000;
const KEEPALIVE_EVERY_MS = 5_000;
const LOCAL_TIMEOUT_MS = 600_000;

export function registerV1Routes(app: FastifyInstance, ctx: ServerContext): void {
  const pools = new UpstreamPools();
  app.addHook('onClose', () => pools.close());
  for (const def of ROUTES) {
    app.post(def.url, { config: { access: 'v1' } }, (request, reply) => dispatch(ctx, pools, def.route, def.upstreamPath, request, reply));
  }
}

async function dispatch(ctx: ServerContext, pools: UpstreamPools, route: V1Route, upstreamPath: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const body = objectBody(request);
  if (typeof body.model !== 'string' || body.model === '') {
    throw new RequestError('request.invalid', '`model` is required: a slot name, a model id, or a svc/* name', { problems: [{ path: 'model', message: 'required (a string)' }] });
  }
  if (route === 'chat') delete body.omni; // the client-side tool loop arrives with tool servers (docs/routing.md)
  const stream = body.stream === true;
  const target = await resolve(ctx, body.model, route);

  const abort = new AbortController();
  const res = reply.raw;
  res.once('close', () => res.writableEnded || abort.abort());
  let release: (() => void) | undefined;
  const targetDetails = target.kind === 'slot' ? { slot: target.slot } : { upstream: target.upstream };
  try {
    let origin: string;
    let path: string;
    let headers: Record<string, string> = { 'content-type': 'application/json' };
    let timeoutMs = LOCAL_TIMEOUT_MS;
    if (target.kind === 'slot') {
      const ready = await waitForSlot(ctx, target.slot, stream, reply, abort.signal);
      release = ctx.supervisor.acquire(target.slot);
      origin = ready.baseUrl;
      path = `/v1${upstreamPath}`;
    } else {
      const endpoint = ctx.upstreams.endpoint(target.upstream, target.model);
      const base = new URL(endpoint.baseUrl);
      origin = base.origin;
      path = `${base.pathname.replace(/\/+$/, '')}${upstreamPath}`;
      headers = { ...endpoint.headers, ...headers };
      timeoutMs = endpoint.timeoutMs ?? LOCAL_TIMEOUT_MS;
    }
    // Slot names and aliases become the backing model id; a provider's model_prefix comes off.
    body.model = target.kind === 'slot' ? target.model : ctx.upstreams.upstreamModel(target.upstream, target.model);
    const upstream = await callUpstream(pools, {
      origin, path, headers, body: JSON.stringify(body), signal: abort.signal,
      headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs,
      target: targetDetails,
    });
    if (!reply.sent) reply.hijack();
    if (!res.headersSent) relayHead(res, upstream);
    await relayBody(res, upstream.body);
    res.end();
  } catch (error) {
    if (abort.signal.aborted && res.destroyed) return; // the client left; nothing to tell
    if (!reply.sent) throw error; // nothing written yet: the error handler renders it
    // Past the headers a failure is the upstream breaking off (e.g. its engine died).
    endWithError(res, upstreamError(error, targetDetails), stream);
  } finally {
    release?.();
  }
}

async function resolve(ctx: ServerContext, model: string, route: V1Route): Promise<Extract<Resolution, { kind: 'slot' | 'upstream' }>> {
  const slots = slotCandidates(ctx.config, ctx.supervisor.list({ memory: false }));
  let result = resolveTarget(model, route, slots, []);
  // Remote model lists are only consulted (and fetched when cold) for ids no slot serves.
  if (result.kind === 'not_found') result = resolveTarget(model, route, slots, await ctx.upstreams.catalogs());
  if (result.kind === 'not_found') {
    throw new DispatchError('model.not_found', `no slot, svc/* name or upstream serves the model "${model}"`, { model, candidates: result.candidates });
  }
  if (result.kind === 'wrong_type') {
    throw new DispatchError('dispatch.wrong_slot_type', `slot ${result.slot} is a ${result.slotType} slot; this route needs a ${result.accepts.join(' or ')} slot`, { slot: result.slot, slot_type: result.slotType, route: result.route, accepts: result.accepts });
  }
  return result;
}

/** Make the slot ready; a stream that has to wait gets SSE comments so proxies keep it open. */
async function waitForSlot(ctx: ServerContext, slot: string, stream: boolean, reply: FastifyReply, signal: AbortSignal) {
  const view = ctx.supervisor.view(slot, { memory: false });
  if (view.state === 'error' && view.last_error?.code === 'slot.crash_loop') {
    throw new SlotError('slot.not_ready', `slot ${slot} is in error after repeated crashes; \`svc slot load ${slot}\` tries again`, { slot, state: view.state, last_error: view.last_error });
  }
  if (view.state === 'ready') return ctx.supervisor.ensureReady(slot, signal);
  const ready = ctx.supervisor.ensureReady(slot, signal);
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
function endWithError(res: ServerResponse, error: SvcError, stream: boolean): void {
  if (res.destroyed) return;
  if (!res.headersSent) {
    res.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(error.toEnvelope()));
    return;
  }
  if (stream) res.write(sseErrorEvent(error.toEnvelope()));
  res.end();
}
