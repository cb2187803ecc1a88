// The dispatcher (DESIGN.md, "Request hot path"): resolve a request's `model` to a slot or a
// remote upstream, make the slot ready (holding the connection while it loads, and asking the
// GPU arbiter first), forward the bytes with one keep-alive undici pool per origin, relay
// a successful answer byte for byte and an error answer in svc's envelope
// (error-answer.ts), and end a response that already started with one SSE error event when
// the upstream breaks off or answers an error. One per app: it owns the pools and the cold-stream
// flights, and the /v1 handlers are thin adapters over it.
import { performance } from 'node:perf_hooks';
import type { ResolvedConfig } from '../config/load.js';
import { DispatchError, SlotError } from '../protocol/errors.js';
import { slotTypePhrase } from '../protocol/vocabulary.js';
import type { GpuArbiter } from '../slots/gpu-arbiter.js';
import type { ReadySlot, SlotSupervisor } from '../slots/supervisor.js';
import { lastStartFailed, slotCandidates } from './candidates.js';
import { type ColdHead, ColdWaiters, failureCode, LOCAL_TIMEOUT_MS, shareColdStream } from './cold-stream.js';
import { readErrorAnswer, sendErrorAnswer } from './error-answer.js';
import { ClientGone } from './client-gone.js';
import { callUpstream, checkContentType, endWithError, relayBody, relayHead, upstreamError, UpstreamPools } from './forward.js';
import type { MeterTap, SlotMetrics } from './metrics.js';
import { npuDirectRoute } from './npu-route.js';
import { resolveTarget } from './resolve.js';
import { StreamFlights } from './single-flight.js';
import { waitForSlot } from './slot-wait.js';
import type { ClientExchange, DispatchTarget, Forwarded, ForwardTarget, SlotCandidate, V1Route } from './types.js';
import type { PeerDirectory } from '../peers/directory.js';
import { dispatchToGroup, dispatchToReplicas, RETRIED_STATUSES, type ForwardOutcome, type ReplicaChoice } from './replicas.js';
import type { UpstreamDirectory } from './upstreams.js';

export interface DispatcherDeps {
  config: () => ResolvedConfig;
  supervisor: SlotSupervisor;
  upstreams: UpstreamDirectory;
  metrics: SlotMetrics;
  arbiter: GpuArbiter;
  /** Peers and health-checked upstreams (src/peers); absent or inactive, requests go where resolution says. */
  peers?: PeerDirectory;
  /** Told which replica a request of a replica set went to (the activity row). */
  onReplica?: (choice: ReplicaChoice) => void;
}

/** Where one request goes: origin, path, headers and model id, with its timeout. */
interface Hop {
  origin: string;
  path: string;
  headers: Record<string, string>;
  timeoutMs: number;
  model: string;
}

export class Dispatcher {
  readonly pools = new UpstreamPools();
  private readonly flights = new StreamFlights<ColdHead>();
  private readonly coldWaiters = new ColdWaiters();

  constructor(private readonly deps: DispatcherDeps) {}

  /** The slots as resolution sees them now (config joined with state; failed starts marked). */
  candidates(): SlotCandidate[] {
    return slotCandidates(this.deps.config(), this.deps.supervisor.routing());
  }

  /** slot.disabled for a request naming a disabled slot (by name, svc/<name> or model id). */
  disabledError(slot: string, model: string): SlotError {
    const file = this.deps.config().slots.find((e) => e.name === slot)?.file ?? `slots/${slot}.toml`;
    return new SlotError('slot.disabled', `slot ${slot} serves "${model}" but is disabled in ${file} (enabled = false); set enabled = true there to route requests to it`, { slot, model, file });
  }

  /** The slot or upstream serving `model` on `route`; model.not_found, slot.disabled or dispatch.wrong_slot_type otherwise. */
  async resolve(model: string, route: V1Route): Promise<DispatchTarget> {
    const slots = this.candidates();
    let result = resolveTarget(model, route, slots, [], { suggest: false });
    // Remote model lists are only consulted (and fetched when cold) for ids no slot serves.
    if (result.kind === 'not_found' || result.kind === 'disabled') result = resolveTarget(model, route, slots, await this.deps.upstreams.catalogs());
    if (result.kind === 'not_found') {
      throw new DispatchError('model.not_found', `no slot, svc/* name or upstream serves the model "${model}"`, { model, candidates: result.candidates });
    }
    if (result.kind === 'disabled') throw this.disabledError(result.slot, model);
    if (result.kind === 'wrong_type') {
      throw new DispatchError('dispatch.wrong_slot_type', `slot ${result.slot} is ${slotTypePhrase(result.slotType)}; this route needs ${result.accepts.map(slotTypePhrase).join(' or ')}`, { slot: result.slot, slot_type: result.slotType, route: result.route, accepts: result.accepts });
    }
    // NPU embedding and transcription slots are served by the NPU llm slot's engine.
    return npuDirectRoute(result, route, slots);
  }

  /**
   * Resolve and forward. A slot that turns out unable to start as configured (no engine
   * binary, no model file: the start failed before anything was sent) is passed over once
   * for what resolution picks next, so the first request to a broken slot with a working
   * twin is answered by the twin instead of failing (docs/routing.md, Preference).
   */
  async dispatch(model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void> {
    // With peers configured, a model several targets serve is a replica set (replicas.ts); a
    // request that came from a peer stays here. Without peers this is one property read.
    const peers = this.deps.peers;
    if (peers?.active) {
      const deps = { peers, onReplica: this.deps.onReplica, supervisor: this.deps.supervisor };
      // An explicit group (peers.toml [models.<id>]) is one even for a peer's request (then without its peers).
      const members = peers.groupMembers(model, forwarded.fromPeer === true);
      if (members) return dispatchToGroup(this, deps, model, members, route, forwarded, client);
      if (forwarded.fromPeer !== true) return dispatchToReplicas(this, deps, model, route, forwarded, client);
    }
    return this.dispatchLocal(model, route, forwarded, client);
  }

  /** dispatch() over this gateway's own slots and upstreams. */
  async dispatchLocal(model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void> {
    const target = await this.resolve(model, route);
    try {
      return await this.forward(target, forwarded, client);
    } catch (error) {
      if (target.kind !== 'slot' || client.res.headersSent || !this.cannotStart(target.slot)) throw error;
      const next = await this.resolve(model, route).catch(() => target);
      if (next.kind === 'slot' && (next.slot === target.slot || this.cannotStart(next.slot))) throw error;
      return this.forward(next, forwarded, client);
    }
  }

  /** Whether the last start of `slot` failed for a reason of its own (the supervisor's last_error). */
  private cannotStart(slot: string): boolean {
    return lastStartFailed(this.deps.supervisor.routingOf(slot));
  }

  /** Make a slot ready for a request (see slot-wait.ts), for routes that talk to the engine themselves (images). */
  waitForSlot(slot: string, stream: boolean, client: ClientExchange, gone: { readonly signal: AbortSignal }): Promise<ReadySlot> {
    return waitForSlot(this.deps.supervisor, slot, stream, client, gone);
  }

  /**
   * Send a resolved request to its target and relay the answer: for a slot, make it ready and
   * count the request in flight; for a remote upstream, add its headers (the API key) and use
   * its timeout. Status, meaningful headers and body are relayed as they arrive; the upstream
   * request is aborted when the client leaves. With outcome.holdServerErrors (the replica
   * loop), a 500/502/503/504 answer before any byte went out is left in outcome.serverError.
   */
  async forward(target: ForwardTarget, forwarded: Forwarded, client: ClientExchange, outcome?: ForwardOutcome): Promise<void> {
    const gone = new ClientGone();
    const res = client.res;
    res.on('close', () => res.writableEnded || gone.abort());
    let release: (() => void) | undefined;
    // Requests to a slot are metered (counted on the side; no byte changes): see metrics.ts.
    let tap: MeterTap | undefined = target.kind === 'slot' ? this.deps.metrics.start(target.slot) : undefined;
    const targetDetails = target.kind === 'slot' ? { slot: target.slot } : target.kind === 'peer' ? { peer: target.peer } : { upstream: target.upstream };
    try {
      let hop: Hop;
      if (target.kind === 'slot') {
        // A request for an LLM GPU slot takes the GPU back from image mode (slots/gpu-arbiter.ts).
        if (this.deps.arbiter.mode === 'image') await this.deps.arbiter.beforeInference(target.slot);
        // Identical streams that find their slot cold share one upstream call (docs/routing.md, "On-demand loading and streaming").
        const cold = forwarded.stream && this.deps.supervisor.routingOf(target.slot).state !== 'ready';
        const joined = cold ? this.coldWaiters.add(target.slot) : undefined;
        try {
          const waitFrom = client.timing ? performance.now() : 0;
          const ready = await waitForSlot(this.deps.supervisor, target.slot, forwarded.stream, client, gone);
          if (client.timing && ready.started) client.timing.loadMs += performance.now() - waitFrom;
          if (joined) {
            const startedAt = tap!.startedAt;
            tap = undefined; // the shared flight meters itself, once
            const deps = { ...this.deps, pools: this.pools, flights: this.flights, coldWaiters: this.coldWaiters };
            return await shareColdStream(deps, { slot: target.slot, model: target.model, origin: ready.baseUrl, forwarded, startedAt, joined }, client, gone.signal);
          }
          release = this.deps.supervisor.acquire(target.slot);
          hop = { origin: ready.baseUrl, path: `/v1${forwarded.upstreamPath}`, headers: { 'content-type': forwarded.contentType }, timeoutMs: LOCAL_TIMEOUT_MS, model: target.model };
        } finally {
          joined?.(); // shareColdStream calls it as soon as it joined; this covers the failures
        }
      } else if (target.kind === 'peer') {
        hop = { origin: target.origin, path: `${target.basePath}/v1${forwarded.upstreamPath}`, headers: { ...target.headers, 'content-type': forwarded.contentType }, timeoutMs: LOCAL_TIMEOUT_MS, model: target.model };
      } else {
        hop = this.upstreamHop(target.upstream, target.model, forwarded);
      }
      const body = forwarded.body(hop.model, target);
      if (client.timing) client.timing.sentAt = performance.now();
      const upstream = await callUpstream(this.pools, {
        origin: hop.origin, path: hop.path, headers: hop.headers, body, signal: gone,
        headersTimeoutMs: hop.timeoutMs, bodyTimeoutMs: hop.timeoutMs, target: targetDetails,
      });
      checkContentType(upstream, forwarded.accepts, targetDetails);
      tap?.head(upstream.statusCode, upstream.headers['content-type']);
      if (upstream.statusCode >= 400) {
        // The engine's own error, in the envelope (error-answer.ts); counted as http_<status>.
        const answer = await readErrorAnswer(upstream, target.kind === 'slot' ? { slot: target.slot } : target.kind === 'peer' ? { upstream_name: `peer:${target.peer}` } : { upstream_name: target.upstream });
        tap?.end('ok');
        if (outcome?.holdServerErrors && RETRIED_STATUSES.has(answer.status) && !res.headersSent) {
          outcome.serverError = answer;
          return;
        }
        client.takeOver();
        return sendErrorAnswer(res, answer, forwarded.stream, client.timing);
      }
      const rewrite = forwarded.rewriteAnswer?.(target);
      if (rewrite) {
        // A JSON answer the route changes before the client sees it (images from a peer): read whole.
        const bytes = JSON.stringify(await rewrite(await upstream.body.json()));
        client.takeOver();
        res.writeHead(upstream.statusCode, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(bytes) });
        res.end(bytes);
        tap?.end('ok');
        return;
      }
      client.takeOver();
      if (!res.headersSent) relayHead(res, upstream, client.timing);
      await relayBody(res, upstream.body, tap);
      tap?.end(res.destroyed ? 'cancelled' : 'ok');
      res.end();
    } catch (error) {
      if (gone.aborted && res.destroyed) {
        tap?.end('cancelled');
        return; // the client left; nothing to tell
      }
      if (!res.headersSent) {
        if (tap) tap.end('error', failureCode(error, tap.slot));
        throw error; // nothing written yet: the server's error renderer answers
      }
      // Past the headers a failure is the upstream breaking off (e.g. its engine died).
      const failure = upstreamError(error, targetDetails);
      if (outcome) outcome.broken = failure;
      tap?.end('error', failure.code);
      endWithError(res, failure, forwarded.stream);
    } finally {
      release?.();
    }
  }

  /** Close the keep-alive pools (with the app). */
  close(): Promise<void> {
    return this.pools.close();
  }

  private upstreamHop(name: string, model: string, forwarded: Forwarded): Hop {
    const { upstreams } = this.deps;
    const endpoint = upstreams.endpoint(name, model);
    return {
      origin: endpoint.origin,
      path: `${endpoint.basePath}${forwarded.upstreamPath}`,
      headers: { ...endpoint.headers, 'content-type': forwarded.contentType },
      timeoutMs: endpoint.timeoutMs ?? LOCAL_TIMEOUT_MS,
      model: upstreams.upstreamModel(name, model),
    };
  }
}

