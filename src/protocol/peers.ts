// GET /api/peers and the peer events' wire shapes (docs/api.md, docs/scaling.md): shared by
// the server, the CLI and the dashboard.

export type PeerBreakerState = 'closed' | 'open' | 'half-open';

/** `up`: the last health check answered; `down`: it failed; `unknown`: not checked yet; `disabled`: enabled = false. */
export type PeerState = 'unknown' | 'up' | 'down' | 'disabled';

export interface PeerLoadView {
  loaded: string[];
  in_flight: number;
  free_memory_mib: number | null;
}

export interface PeerView {
  name: string;
  /** `peer` (a svc gateway in peers.toml), or the kind of an upstreams.toml entry that is health-checked (`vllm`, `llama-server`). */
  kind: 'peer' | 'vllm' | 'llama-server';
  /** The X-Svc-Target value requests sent there carry: `peer:<name>` or `upstream:<name>`. */
  target: string;
  url: string;
  enabled: boolean;
  weight: number;
  state: PeerState;
  breaker: { state: PeerBreakerState; consecutive_failures: number; retry_at: string | null };
  /** Model ids it serves (its /v1/models), or null before the first answer. */
  models: string[] | null;
  load: PeerLoadView | null;
  /** Requests this gateway has in flight to it now. */
  in_flight_here: number;
  /** When it last answered a health check (ISO time), or null. */
  last_seen: string | null;
  /** The last health check's failure, cleared by the next success. */
  error: string | null;
}

export interface PeersPayload {
  peers: PeerView[];
}

export interface PeerStateEventData {
  peer: string;
  target: string;
  from: PeerState;
  to: PeerState;
  error: string | null;
}

export interface PeerBreakerEventData {
  peer: string;
  target: string;
  from: PeerBreakerState;
  to: PeerBreakerState;
  reason: string;
}
