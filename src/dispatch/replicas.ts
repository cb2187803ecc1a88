// Replica sets (docs/scaling.md): when peers or health-checked upstreams are configured, a
// model that this gateway's slot or upstream serves and that remote targets serve too is
// served by whichever replica chooseReplica (src/peers/replica-choice.ts) picks: loaded
// before must-load, then the least in flight, weighted; a local slot wins a tie. A replica
// that fails before the first byte went to the client is passed over once for the next
// choice; every failure counts toward its circuit breaker. The choice is named in the
// X-Svc-Target response header and told to onReplica (the activity row).
import { DispatchError, SvcError } from '../protocol/errors.js';
import type { PeerDirectory, RemoteReplica } from '../peers/directory.js';
import { PEER_HOP_HEADER } from '../peers/hop.js';
import { chooseReplica, type ReplicaCandidate } from '../peers/replica-choice.js';
import type { SlotSupervisor } from '../slots/supervisor.js';
import type { ClientExchange, DispatchTarget, Forwarded, ForwardTarget, V1Route } from './types.js';

/** What the replica choice uses of the Dispatcher (which calls it: a type of its own keeps the two modules apart). */
export interface ReplicaDispatcher {
  resolve(model: string, route: V1Route): Promise<DispatchTarget>;
  dispatchLocal(model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void>;
  forward(target: ForwardTarget, forwarded: Forwarded, client: ClientExchange, outcome?: { broken?: Error }): Promise<void>;
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

interface ReplicaDeps {
  peers: PeerDirectory;
  supervisor: SlotSupervisor;
  onReplica?: (choice: ReplicaChoice) => void;
}

type Candidate = ReplicaCandidate & { own?: DispatchTarget; remote?: RemoteReplica };

const localId = (t: DispatchTarget) => (t.kind === 'slot' ? `slot:${t.slot}` : `upstream:${t.upstream}`);

/** This gateway's own target as a candidate: a slot's state and in-flight count; an upstream as loaded. */
function localCandidate(target: DispatchTarget, supervisor: SlotSupervisor): Candidate {
  if (target.kind === 'upstream') return { id: localId(target), loaded: true, inFlight: 0, weight: 1, available: true, local: true, own: target };
  const view = supervisor.view(target.slot, { memory: false });
  return { id: localId(target), loaded: view.state === 'ready', inFlight: view.in_flight, weight: 1, available: true, local: true, own: target };
}

function remoteTarget(peers: PeerDirectory, replica: RemoteReplica, model: string): ForwardTarget {
  const t = replica.target;
  if (t.kind !== 'peer') return { kind: 'upstream', upstream: t.name, model };
  return { kind: 'peer', peer: t.name, model, origin: t.origin, basePath: t.basePath, headers: { ...peers.headersFor(t), [PEER_HOP_HEADER]: '1' } };
}

export async function dispatchToReplicas(dispatcher: ReplicaDispatcher, deps: ReplicaDeps, model: string, route: V1Route, forwarded: Forwarded, client: ClientExchange): Promise<void> {
  const { peers } = deps;
  let local: DispatchTarget | undefined;
  let notFound: unknown;
  try {
    local = await dispatcher.resolve(model, route);
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== 'model.not_found') throw error;
    notFound = error;
  }
  // Remote replicas are matched by the model id the local resolution found (svc/* names and
  // slot names become it), else by the name asked for.
  const id = local?.model ?? model;
  const remote = peers.replicasServing(id).filter((r) => local === undefined || r.id !== localId(local));
  if (remote.length === 0) {
    if (local === undefined) throw notFound;
    return dispatcher.dispatchLocal(model, route, forwarded, client);
  }
  // Read anew before each try: a retry sees a peer that came up, or a breaker that opened, meanwhile.
  // A vllm or llama-server upstream resolution found is one of the directory's, with its load.
  const candidatesNow = (): Candidate[] => {
    const remotes: Candidate[] = peers.replicasServing(id).map((r) => ({ ...r, remote: r }));
    const tracked = local !== undefined && remotes.some((r) => r.id === localId(local));
    return [...(local && !tracked ? [localCandidate(local, deps.supervisor)] : []), ...remotes];
  };
  let candidates: Candidate[] = [];
  const tried = new Set<string>();
  let retriedFrom: string | undefined;
  let lastError: unknown;
  while (tried.size < 2) {
    candidates = candidatesNow();
    const pick = chooseReplica(candidates, tried) as Candidate | undefined;
    if (pick === undefined) break;
    tried.add(pick.id);
    // Another request may have taken an open breaker's one probe between the choice and here.
    if (pick.remote && !peers.acquire(pick.id)) continue;
    if (!client.res.headersSent) client.res.setHeader(TARGET_HEADER, pick.id);
    const release = pick.remote ? peers.begin(pick.id) : undefined;
    const outcome: { broken?: Error } = {};
    try {
      await dispatcher.forward(pick.own ?? remoteTarget(peers, pick.remote!, id), forwarded, client, outcome);
      if (pick.remote) {
        if (outcome.broken) peers.failed(pick.id, outcome.broken.message);
        else peers.succeeded(pick.id);
      }
      deps.onReplica?.({ model: id, target: pick.id, replicas: candidates.map((c) => c.id), ...(retriedFrom && { retried_from: retriedFrom }), outcome: outcome.broken ? 'error' : 'ok', ...(outcome.broken && { error: outcome.broken.message }) });
      return;
    } catch (error) {
      if (pick.remote) peers.failed(pick.id, (error as Error).message);
      // Past the first byte a retry would send the client a second answer: the error stands.
      if (client.res.headersSent) throw error;
      client.res.removeHeader(TARGET_HEADER);
      lastError = error;
      retriedFrom ??= pick.id;
    } finally {
      release?.();
    }
  }
  deps.onReplica?.({ model: id, target: retriedFrom ?? 'none', replicas: candidates.map((c) => c.id), outcome: 'error', error: (lastError as Error | undefined)?.message ?? 'no replica available' });
  if (lastError !== undefined && tried.size < 2) throw lastError;
  throw new DispatchError('dispatch.no_replica', lastError ? `every replica of "${id}" tried failed before answering: ${(lastError as Error).message}` : `every replica of "${id}" has its circuit breaker open`, {
    model: id,
    replicas: candidates.map((c) => ({ target: c.id, available: c.available })),
  });
}
