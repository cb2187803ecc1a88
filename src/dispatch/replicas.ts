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
import { type ErrorAnswer, sendErrorAnswer } from './error-answer.js';
import type { ClientExchange, DispatchTarget, Forwarded, ForwardTarget, V1Route } from './types.js';

/** What forward() tells its caller besides throwing (the replica loop passes one). */
export interface ForwardOutcome {
  /** The answer started and then broke off (the client got an SSE error event). */
  broken?: Error;
  /** Keep a RETRIED_STATUSES answer that came before any byte went to the client in serverError instead of sending it. */
  holdServerErrors?: boolean;
  serverError?: ErrorAnswer;
}

/** Statuses a replica's failure, retried on another (a 4xx is the client's and would repeat). */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504]);

/** What the replica choice uses of the Dispatcher (which calls it: a type of its own keeps the two modules apart). */
export interface ReplicaDispatcher {
  resolve(model: string, route: V1Route): Promise<DispatchTarget>;
  dispatchLocal(model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void>;
  forward(target: ForwardTarget, forwarded: Forwarded, client: ClientExchange, outcome?: ForwardOutcome): Promise<void>;
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
function sendTo(dispatcher: ReplicaDispatcher, target: ForwardTarget, forwarded: Forwarded, client: ClientExchange, outcome?: ForwardOutcome): Promise<void> {
  if (target.kind === 'slot' && forwarded.local) return forwarded.local.serveSlot(target, client);
  return dispatcher.forward(target, forwarded, client, outcome);
}

/** A model several targets serve (by model id): the implicit replica set. */
export async function dispatchToReplicas(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void> {
  const { peers } = deps;
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
    if (forwarded.local) return sendTo(dispatcher, local, forwarded, client);
    return dispatcher.dispatchLocal(model, route, forwarded, client);
  }
  // A vllm or llama-server upstream resolution found is one of the directory's, with its load.
  const candidatesNow = (): Candidate[] => {
    const remotes = peers.replicasServing(id).map((r) => remoteCandidate(peers, r, id));
    const tracked = local !== undefined && remotes.some((r) => r.id === localId(local));
    return [...(local && !tracked ? [localCandidate(local, deps.supervisor)] : []), ...remotes];
  };
  return replicaLoop(dispatcher, deps, id, candidatesNow, forwarded, client);
}

/** A group id of peers.toml `[models.<id>]`: its members, each sent the id it knows the model by. */
export async function dispatchToGroup(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, id: string, members: readonly GroupMember[], route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void> {
  const { peers } = deps;
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
  return replicaLoop(dispatcher, deps, id, candidatesNow, forwarded, client);
}

/** Try the best replica, then once the next best when the first failed before answering. */
async function replicaLoop(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, id: string, candidatesNow: () => Candidate[], forwarded: Forwarded, client: ClientExchange): Promise<void> {
  const { peers } = deps;
  const res = client.res;
  let candidates: Candidate[] = [];
  const tried = new Set<string>();
  let retriedFrom: string | undefined;
  let lastError: unknown;
  let held: { from: string; answer: ErrorAnswer } | undefined;
  const row = (choice: Omit<ReplicaChoice, 'model' | 'replicas'>) => deps.onReplica?.({ model: id, replicas: candidates.map((c) => c.id), ...choice });
  while (tried.size < 2) {
    // Read anew before each try: a retry sees a peer that came up, or a breaker that opened, meanwhile.
    candidates = candidatesNow().filter((c) => serves(forwarded, c));
    const pick = chooseReplica(candidates, tried) as Candidate | undefined;
    if (pick === undefined) break;
    tried.add(pick.id);
    // Another request may have taken an open breaker's one probe between the choice and here.
    if (pick.remote && !peers.acquire(pick.id)) continue;
    if (!res.headersSent) res.setHeader(TARGET_HEADER, pick.id);
    const release = pick.remote ? peers.begin(pick.id) : undefined;
    const outcome: ForwardOutcome = { holdServerErrors: true };
    try {
      await sendTo(dispatcher, pick.send, forwarded, client, outcome);
      if (outcome.serverError) {
        // Nothing went to the client: the answer is kept, and another replica asked.
        const reason = `answered ${outcome.serverError.status}: ${outcome.serverError.envelope.error.message}`;
        if (pick.remote) peers.failed(pick.id, reason);
        if (!res.headersSent) res.removeHeader(TARGET_HEADER);
        held = { from: pick.id, answer: outcome.serverError };
        lastError = new Error(`${pick.id} ${reason}`);
        retriedFrom ??= pick.id;
        continue;
      }
      if (pick.remote) {
        if (outcome.broken) peers.failed(pick.id, outcome.broken.message);
        else peers.succeeded(pick.id);
      }
      row({ target: pick.id, ...(retriedFrom && { retried_from: retriedFrom }), outcome: outcome.broken ? 'error' : 'ok', ...(outcome.broken && { error: outcome.broken.message }) });
      return;
    } catch (error) {
      if (pick.remote) peers.failed(pick.id, (error as Error).message);
      // Past the first byte a retry would send the client a second answer: the error stands.
      if (res.headersSent) throw error;
      res.removeHeader(TARGET_HEADER);
      lastError = error;
      retriedFrom ??= pick.id;
    } finally {
      release?.();
    }
  }
  if (held && !res.headersSent) {
    // No replica answered better: the last 5xx answer goes to the client, in the envelope, naming who gave it.
    row({ target: held.from, ...(retriedFrom !== held.from && { retried_from: retriedFrom }), outcome: 'error', error: (lastError as Error).message });
    client.takeOver();
    res.setHeader(TARGET_HEADER, held.from);
    return sendErrorAnswer(res, held.answer, forwarded.stream, client.timing);
  }
  row({ target: retriedFrom ?? 'none', outcome: 'error', error: (lastError as Error | undefined)?.message ?? 'no replica available' });
  if (lastError !== undefined && tried.size < 2) throw lastError;
  throw new DispatchError('dispatch.no_replica', lastError ? `every replica of "${id}" tried failed before answering: ${(lastError as Error).message}` : `every replica of "${id}" has its circuit breaker open`, {
    model: id,
    replicas: candidates.map((c) => ({ target: c.id, available: c.available })),
  });
}
