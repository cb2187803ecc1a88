// Which replica of a replica set serves a request (docs/scaling.md, Replica sets). Pure: it
// reads only its arguments, so every rule is unit-tested.
//
//   1. only replicas whose breaker lets a request through, and not already tried;
//   2. a replica with the model loaded before one that must load it;
//   3. the least in flight, divided by the weight;
//   4. then the heavier weight, then this gateway's own target, then the id (code-point
//      order), so a choice is repeatable.

export interface ReplicaCandidate {
  /** `slot:<name>`, `peer:<name>` or `upstream:<name>`: the X-Svc-Target value. */
  id: string;
  loaded: boolean;
  inFlight: number;
  weight: number;
  /** Its breaker lets a request through now. */
  available: boolean;
  /** This gateway's own slot or upstream: it wins a tie (no network hop). */
  local?: boolean;
}

function compare(a: ReplicaCandidate, b: ReplicaCandidate): number {
  if (a.loaded !== b.loaded) return a.loaded ? -1 : 1;
  const load = a.inFlight / a.weight - b.inFlight / b.weight;
  if (load !== 0) return load;
  if (a.weight !== b.weight) return b.weight - a.weight;
  if ((a.local ?? false) !== (b.local ?? false)) return a.local ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The replica to send to, or undefined when none is available (every breaker open, or all tried). */
export function chooseReplica(candidates: readonly ReplicaCandidate[], tried: ReadonlySet<string> = new Set()): ReplicaCandidate | undefined {
  let best: ReplicaCandidate | undefined;
  for (const c of candidates) {
    if (!c.available || tried.has(c.id)) continue;
    if (best === undefined || compare(c, best) < 0) best = c;
  }
  return best;
}
