// Replica sets (docs/scaling.md): when peers, health-checked upstreams or explicit groups are
// configured, a model that this gateway's slot or upstream serves and that remote targets
// serve too, or a group id of peers.toml `[models.<id>]`, is served by whichever replica
// chooseReplica (src/peers/replica-choice.ts) picks: loaded before must-load, then the least
// in flight, weighted; a local slot wins a tie. A replica that fails before the first byte
// went to the client (no answer, or a 500/502/503/504 answer) is passed over once for the
// next choice; every failure counts toward its circuit breaker. The choice is named in the
// X-Svc-Target response header and told to onReplica (the activity row).
import { DispatchError, SvcError } from '../protocol/errors.js';
import type { PeerDirectory, RemoteReplica } from '../peers/directory.js';
import type { GroupMember } from '../peers/groups.js';
import { PEER_HOP_HEADER } from '../peers/hop.js';
import { chooseReplica, type ReplicaCandidate } from '../peers/replica-choice.js';
import type { SlotSupervisor } from '../slots/supervisor.js';
import { type DispatchResult, isStream } from './result.js';
import type { DispatchRequest, DispatchTarget, Forwarded, ForwardTarget, V1Route } from './types.js';

/** Statuses a replica's failure, retried on another (a 4xx is the client's and would repeat). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** What the replica choice uses of the Dispatcher (which calls it: a type of its own keeps the two modules apart). */
export interface ReplicaDispatcher {
  resolve(model: string, route: V1Route): Promise<DispatchTarget>;
  dispatchLocal(request: DispatchRequest): Promise<DispatchResult>;
  forward(target: ForwardTarget, request: DispatchRequest, onEnd?: (broken: Error | undefined) => void): Promise<DispatchResult>;
}

export const TARGET_HEADER = 'x-svc-target';

export interface ReplicaChoice {
  model: string;
  /** The replica that answered (or broke off): `slot:<name>`, `peer:<name>`, `upstream:<name>`. */
  target: string;
  replicas: string[];
  /** The replica tried first, which failed before answering; absent when the first choice answered. */
  retried_from?: string;
  outcome: 'ok' | 'error';
  error?: string;
}

export interface ReplicaDeps {
  peers: PeerDirectory;
  supervisor: SlotSupervisor;
  onReplica?: (choice: ReplicaChoice) => void;
}

/** A replica with where to send it: `remote` ones have a breaker and an in-flight count in the directory. */
type Candidate = ReplicaCandidate & { send: ForwardTarget; remote?: boolean };

const localId = (t: DispatchTarget) => (t.kind === 'slot' ? `slot:${t.slot}` : `upstream:${t.upstream}`);

/** This gateway's own target as a candidate: a slot's state and in-flight count; an upstream as loaded. */
function localCandidate(target: DispatchTarget, supervisor: SlotSupervisor): Candidate {
  if (target.kind === 'upstream') return { id: localId(target), loaded: true, inFlight: 0, weight: 1, available: true, local: true, send: target };
  const view = supervisor.view(target.slot, { memory: false });
  return { id: localId(target), loaded: view.state === 'ready', inFlight: view.in_flight, weight: 1, available: true, local: true, send: target };
}

function remoteCandidate(peers: PeerDirectory, replica: RemoteReplica, model: string): Candidate {
  const t = replica.target;
  const send: ForwardTarget = t.kind !== 'peer'
    ? { kind: 'upstream', upstream: t.name, model }
    : { kind: 'peer', peer: t.name, model, origin: t.origin, basePath: t.basePath, headers: { ...peers.headersFor(t), [PEER_HOP_HEADER]: '1' } };
  return { ...replica, send, remote: true };
}

const serves = (forwarded: Forwarded, c: Candidate) => forwarded.serves?.(c.send) ?? true;

/** What a local resolution throws when this gateway does not serve the model (images: no curated model, no image slot). */
const NOT_SERVED_HERE = new Set(['model.not_found', 'image.model_not_curated', 'dispatch.no_route']);

/** Forward to a target, or let the route's own handler answer from one of this gateway's slots (images). */
function sendTo(dispatcher: ReplicaDispatcher, target: ForwardTarget, request: DispatchRequest, onEnd?: (broken: Error | undefined) => void): Promise<DispatchResult> {
  if (target.kind === 'slot' && request.local) return request.local.serveSlot(target);
  return dispatcher.forward(target, request, onEnd);
}

/** A model several targets serve (by model id): the implicit replica set. */
export async function dispatchToReplicas(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, request: DispatchRequest): Promise<DispatchResult> {
  const { peers } = deps;
  const { model, route } = request;
  const forwarded = request;
  let local: DispatchTarget | undefined;
  let notFound: unknown;
  try {
    local = await (forwarded.local ? forwarded.local.resolve() : dispatcher.resolve(model, route));
  } catch (error) {
    if (!(error instanceof SvcError) || !NOT_SERVED_HERE.has(error.code)) throw error;
    notFound = error;
  }
  // Remote replicas are matched by the model id the local resolution found (svc/* names and
  // slot names become it), else by the name asked for.
  const id = local?.model || model;
  const remote = peers.replicasServing(id).filter((r) => (local === undefined || r.id !== localId(local)) && serves(forwarded, remoteCandidate(peers, r, id)));
  if (remote.length === 0) {
    if (local === undefined) throw notFound;
    if (forwarded.local) return sendTo(dispatcher, local, request);
    return dispatcher.dispatchLocal(request);
  }
  // A vllm or llama-server upstream resolution found is one of the directory's, with its load.
  const candidatesNow = (): Candidate[] => {
    const remotes = peers.replicasServing(id).map((r) => remoteCandidate(peers, r, id));
    const tracked = local !== undefined && remotes.some((r) => r.id === localId(local));
    return [...(local && !tracked ? [localCandidate(local, deps.supervisor)] : []), ...remotes];
  };
  return replicaLoop(dispatcher, deps, id, candidatesNow, request);
}

/** A group id of peers.toml `[models.<id>]`: its members, each sent the id it knows the model by. */
export async function dispatchToGroup(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, members: readonly GroupMember[], request: DispatchRequest): Promise<DispatchResult> {
  const { peers } = deps;
  const { model: id, route } = request;
  const forwarded = request;
  // A slot member is resolved by its name once: one of another type, or disabled, is left out.
  const slots = new Map<string, DispatchTarget>();
  let slotProblem: unknown;
  for (const member of members) {
    if (member.kind !== 'slot') continue;
    try {
      const target = await dispatcher.resolve(member.name, route);
      slots.set(member.id, { ...target, model: member.model ?? target.model });
    } catch (error) {
      slotProblem ??= error;
    }
  }
  const candidatesNow = (): Candidate[] => members.flatMap((member): Candidate[] => {
    if (member.kind === 'slot') {
      const target = slots.get(member.id);
      return target ? [localCandidate(target, deps.supervisor)] : [];
    }
    const replica = peers.replica(member.id, member.model!);
    if (replica) return [remoteCandidate(peers, replica, member.model!)];
    // An upstream without health checks (kind openai): always there, like a resolved one.
    return member.kind === 'upstream' ? [localCandidate({ kind: 'upstream', upstream: member.name, model: member.model! }, deps.supervisor)] : [];
  });
  if (!candidatesNow().some((c) => serves(forwarded, c))) {
    throw slotProblem ?? new DispatchError('dispatch.no_replica', `no member of the replica group "${id}" in peers.toml can serve this request now (its peers and upstreams are disabled, or it came from a peer)`, { model: id, replicas: [] });
  }
  return replicaLoop(dispatcher, deps, id, candidatesNow, request);
}

/** Try the best replica, then once the next best when the first failed before answering. */
async function replicaLoop(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, id: string, candidatesNow: () => Candidate[], request: DispatchRequest): Promise<DispatchResult> {
  const { peers } = deps;
  let candidates: Candidate[] = [];
  const tried = new Set<string>();
  let retriedFrom: string | undefined;
  let lastError: unknown;
  let held: { from: string; result: DispatchResult } | undefined;
  const row = (choice: Omit<ReplicaChoice, 'model' | 'replicas'>) => deps.onReplica?.({ model: id, replicas: candidates.map((c) => c.id), ...choice });
  while (tried.size < 2) {
    // Read anew before each try: a retry sees a peer that came up, or a breaker that opened, meanwhile.
    candidates = candidatesNow().filter((c) => serves(request, c));
    const pick = chooseReplica(candidates, tried) as Candidate | undefined;
    if (pick === undefined) break;
    tried.add(pick.id);
    // Another request may have taken an open breaker's one probe between the choice and here.
    if (pick.remote && !peers.acquire(pick.id)) continue;
    const release = pick.remote ? peers.begin(pick.id) : undefined;
    // How the answer ended: at once for a whole body, when the body ends for a stream.
    const ended = (broken: Error | undefined) => {
      release?.();
      if (pick.remote) {
        if (broken) peers.failed(pick.id, broken.message);
        else peers.succeeded(pick.id);
      }
      row({ target: pick.id, ...(retriedFrom && { retried_from: retriedFrom }), outcome: broken ? 'error' : 'ok', ...(broken && { error: broken.message }) });
    };
    let result: DispatchResult;
    try {
      result = await sendTo(dispatcher, pick.send, request, ended);
    } catch (error) {
      release?.();
      if (pick.remote) peers.failed(pick.id, (error as Error).message);
      lastError = error;
      retriedFrom ??= pick.id;
      continue;
    }
    if (result.envelope && RETRIED_STATUSES.has(result.status)) {
      // Nothing went to the client: the answer is kept, and another replica asked.
      release?.();
      const reason = `answered ${result.status}: ${result.envelope.error.message}`;
      if (pick.remote) peers.failed(pick.id, reason);
      held = { from: pick.id, result };
      lastError = new Error(`${pick.id} ${reason}`);
      retriedFrom ??= pick.id;
      continue;
    }
    if (!isStream(result.body)) ended(undefined);
    result.headers[TARGET_HEADER] = pick.id;
    return result;
  }
  if (held) {
    // No replica answered better: the last 5xx answer goes to the client, in the envelope, naming who gave it.
    row({ target: held.from, ...(retriedFrom !== held.from && { retried_from: retriedFrom }), outcome: 'error', error: (lastError as Error).message });
    held.result.headers[TARGET_HEADER] = held.from;
    return held.result;
  }
  row({ target: retriedFrom ?? 'none', outcome: 'error', error: (lastError as Error | undefined)?.message ?? 'no replica available' });
  if (lastError !== undefined && tried.size < 2) throw lastError;
  throw new DispatchError('dispatch.no_replica', lastError ? `every replica of "${id}" tried failed before answering: ${(lastError as Error).message}` : `every replica of "${id}" has its circuit breaker open`, {
    model: id,
    replicas: candidates.map((c) => ({ target: c.id, available: c.available })),
  });
}
