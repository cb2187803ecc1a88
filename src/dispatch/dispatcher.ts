// The dispatcher (DESIGN.md, "Request hot path"): resolve a request's `model` to a slot or a
// remote upstream, make the slot ready (holding the connection while it loads, and asking the
// GPU arbiter first), forward the bytes with one keep-alive undici pool per origin, relay
// a successful answer byte for byte and an error answer in svc's envelope
// (error-answer.ts), and end a stream that already started with one SSE error event when
// the upstream breaks off or answers an error. It answers with a result (result.ts), never
// by writing to a response: the /v1 front door writes the result (server/write-result.ts),
// in-process callers read it. One per app: it owns the pools and the cold-stream flights.
import { performance } from 'node:perf_hooks';
import type { ResolvedConfig } from '../config/load.js';
import { DispatchError, SlotError } from '../protocol/errors.js';
import { slotTypePhrase } from '../protocol/vocabulary.js';
import type { GpuArbiter } from '../slots/gpu-arbiter.js';
import type { ReadySlot, SlotSupervisor } from '../slots/supervisor.js';
import { lastStartFailed, slotCandidates } from './candidates.js';
import { type ColdHead, ColdWaiters, failureCode, LOCAL_TIMEOUT_MS, shareColdStream } from './cold-stream.js';
import { errorResult, readErrorAnswer } from './error-answer.js';
import { abortSignalOf } from './client-gone.js';
import { callUpstream, checkContentType, relayedHeaders, upstreamError, UpstreamPools } from './forward.js';
import type { SlotMetrics } from './metrics.js';
import { type DispatchResult, isStream, jsonResult } from './result.js';
import { type BodyEnd, UpstreamBody } from './upstream-body.js';
import { npuDirectRoute } from './npu-route.js';
import { resolveTarget } from './resolve.js';
import { StreamFlights } from './single-flight.js';
import { type LateSlot, loadingResult, waitForSlot } from './slot-wait.js';
import type { DispatchRequest, DispatchTarget, ForwardTarget, SlotCandidate, V1Route } from './types.js';
import type { PeerDirectory } from '../peers/directory.js';
import { dispatchToGroup, dispatchToReplicas, type ReplicaChoice } from './replicas.js';
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

/** The signal of a request whose caller cannot leave (undici takes any object with these). */
const NEVER = new AbortController().signal;

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
   * The one entry: resolve `request.model` and forward it; the answer as a result (result.ts)
   * once its head is known, its body still to come. Throws (an SvcError, rendered by the
   * caller) only before any answer exists. A slot that turns out unable to start as
   * configured (no engine binary, no model file: the start failed before anything was sent)
   * is passed over once for what resolution picks next, so the first request to a broken
   * slot with a working twin is answered by the twin instead of failing (docs/routing.md,
   * Preference).
   */
  async dispatch(request: DispatchRequest): Promise<DispatchResult> {
    // With peers configured, a model several targets serve is a replica set (replicas.ts); a
    // request that came from a peer stays here. Without peers this is one property read.
    const peers = this.deps.peers;
    if (peers?.active) {
      const deps = { peers, onReplica: this.deps.onReplica, supervisor: this.deps.supervisor };
      // An explicit group (peers.toml [models.<id>]) is one even for a peer's request (then without its peers).
      const members = peers.groupMembers(request.model, request.fromPeer === true);
      if (members) return dispatchToGroup(this, deps, members, request);
      if (request.fromPeer !== true) return dispatchToReplicas(this, deps, request);
    }
    return this.dispatchLocal(request);
  }

  /** dispatch() over this gateway's own slots and upstreams. */
  async dispatchLocal(request: DispatchRequest, onEnd?: BodyEnd['onEnd']): Promise<DispatchResult> {
    const target = await this.resolve(request.model, request.route);
    try {
      return await this.forward(target, request, onEnd);
    } catch (error) {
      if (target.kind !== 'slot' || !this.cannotStart(target.slot)) throw error;
      const next = await this.resolve(request.model, request.route).catch(() => target);
      if (next.kind === 'slot' && (next.slot === target.slot || this.cannotStart(next.slot))) throw error;
      return this.forward(next, request, onEnd);
    }
  }

  /** Whether the last start of `slot` failed for a reason of its own (the supervisor's last_error). */
  private cannotStart(slot: string): boolean {
    return lastStartFailed(this.deps.supervisor.routingOf(slot));
  }

  /** Make a slot ready for a route that talks to the engine itself (images; never a stream, so never late). */
  async waitForSlot(slot: string, signal: AbortSignal): Promise<ReadySlot> {
    return waitForSlot(this.deps.supervisor, slot, false, () => signal) as Promise<ReadySlot>;
  }

  /**
   * Send a resolved request to its target: for a slot, make it ready and count the request
   * in flight; for a peer or a remote upstream, add its headers (the API key) and use its
   * timeout. The result relays status, meaningful headers and body as they arrive; the
   * upstream request is aborted when the caller's signal fires. `onEnd` hears once when a
   * streamed body ended (broken or not); a whole body is done when it is returned.
   */
  async forward(target: ForwardTarget, request: DispatchRequest, onEnd?: BodyEnd['onEnd']): Promise<DispatchResult> {
    if (target.kind === 'slot') return this.toSlot(target, request, onEnd);
    const hop = target.kind === 'peer'
      ? { origin: target.origin, path: `${target.basePath}/v1${request.upstreamPath}`, headers: { ...target.headers, 'content-type': request.contentType }, timeoutMs: LOCAL_TIMEOUT_MS, model: target.model }
      : this.upstreamHop(target.upstream, target.model, request);
    return this.send(hop, target, request, { onEnd });
  }

  /** A slot's side of forward(): the GPU, the slot made ready (a late stream answered at once), a shared cold stream. */
  private async toSlot(target: Extract<ForwardTarget, { kind: 'slot' }>, request: DispatchRequest, onEnd?: BodyEnd['onEnd']): Promise<DispatchResult> {
    const { slot: name } = target;
    // Requests to a slot are metered (counted on the side; no byte changes): see metrics.ts.
    const tap = this.deps.metrics.start(name);
    let shared = false; // a shared flight meters itself, once: this request's tap is then dropped
    const failed = (error: unknown) => {
      if (!shared) tap.end(request.signal?.aborted ? 'cancelled' : 'error', failureCode(error, name));
      return error;
    };
    let joined: (() => void) | undefined;
    const { timing } = request;
    const waitFrom = timing ? performance.now() : 0;
    const whenReady = async (ready: Promise<ReadySlot>): Promise<DispatchResult> => {
      try {
        const slot = await ready;
        if (timing && slot.started) timing.loadMs += performance.now() - waitFrom;
        if (joined) {
          shared = true;
          const deps = { ...this.deps, pools: this.pools, flights: this.flights, coldWaiters: this.coldWaiters };
          return await shareColdStream(deps, { slot: name, model: target.model, origin: slot.baseUrl, startedAt: tap.startedAt, joined }, request, onEnd);
        }
        const hop = { origin: slot.baseUrl, path: `/v1${request.upstreamPath}`, headers: { 'content-type': request.contentType }, timeoutMs: LOCAL_TIMEOUT_MS, model: target.model };
        return await this.send(hop, target, request, { tap, release: this.deps.supervisor.acquire(name), onEnd });
      } catch (error) {
        throw failed(error);
      } finally {
        joined?.(); // shareColdStream calls it as soon as it joined; this covers the failures
      }
    };
    let wait: ReadySlot | LateSlot;
    try {
      // A request for an LLM GPU slot takes the GPU back from image mode (slots/gpu-arbiter.ts).
      if (this.deps.arbiter.mode === 'image') await this.deps.arbiter.beforeInference(name);
      // Identical streams that find their slot cold share one upstream call (docs/routing.md, "On-demand loading and streaming").
      if (request.stream && this.deps.supervisor.routingOf(name).state !== 'ready') joined = this.coldWaiters.add(name);
      wait = await waitForSlot(this.deps.supervisor, name, request.stream, () => abortSignalOf(request.signal));
    } catch (error) {
      joined?.();
      throw failed(error);
    }
    if (!('late' in wait)) return whenReady(Promise.resolve(wait));
    // The answer once the slot is ready goes out in the loading body; a whole one (an error answer) ends it.
    const thenAnswer = async (ready: Promise<ReadySlot>) => {
      const result = await whenReady(ready);
      if (!isStream(result.body)) onEnd?.(undefined);
      return result;
    };
    return loadingResult(name, wait, thenAnswer, (error) => {
      const failure = upstreamError(error, { slot: name });
      onEnd?.(failure);
      return failure;
    });
  }

  /** Call the upstream and make its answer the result: relayed as it comes, an error answer in the envelope. */
  private async send(hop: Hop, target: ForwardTarget, request: DispatchRequest, end: Omit<BodyEnd, 'stream' | 'target'>): Promise<DispatchResult> {
    const { tap, release } = end;
    const details = target.kind === 'slot' ? { slot: target.slot } : target.kind === 'peer' ? { peer: target.peer } : { upstream: target.upstream };
    try {
      const body = request.body(hop.model, target);
      if (request.timing) request.timing.sentAt = performance.now();
      const upstream = await callUpstream(this.pools, {
        origin: hop.origin, path: hop.path, headers: hop.headers, body, signal: request.signal ?? NEVER,
        headersTimeoutMs: hop.timeoutMs, bodyTimeoutMs: hop.timeoutMs, target: details,
      });
      checkContentType(upstream, request.accepts, details);
      tap?.head(upstream.statusCode, upstream.headers['content-type']);
      if (upstream.statusCode >= 400) {
        // The engine's own error, in the envelope (error-answer.ts); counted as http_<status>.
        const answer = await readErrorAnswer(upstream, target.kind === 'slot' ? { slot: target.slot } : target.kind === 'peer' ? { upstream_name: `peer:${target.peer}` } : { upstream_name: target.upstream });
        tap?.end('ok');
        release?.();
        return errorResult(answer, request.timing);
      }
      const rewrite = request.rewriteAnswer?.(target);
      if (rewrite) {
        // A JSON answer the route changes before the client sees it (images from a peer): read whole.
        const result = jsonResult(upstream.statusCode, await rewrite(await upstream.body.json()));
        tap?.end('ok');
        release?.();
        return result;
      }
      return { status: upstream.statusCode, headers: relayedHeaders(upstream, request.timing), body: new UpstreamBody(upstream.body, { ...end, stream: request.stream, target: details }) };
    } catch (error) {
      release?.();
      throw error;
    }
  }

  /** Close the keep-alive pools (with the app). */
  close(): Promise<void> {
    return this.pools.close();
  }

  private upstreamHop(name: string, model: string, forwarded: DispatchRequest): Hop {
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

