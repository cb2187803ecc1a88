// What this gateway knows about its replica targets (targets.ts): each one's models and load
// from health checks on an interval and on demand (probe.ts), its circuit breaker
// (breaker.ts), and the requests this gateway has in flight to it. The dispatcher asks it
// which remote replicas serve a model; GET /api/peers shows it. State changes are events.
import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/load.js';
import type { PeerBreakerEventData, PeerState, PeerStateEventData, PeerView } from '../protocol/peers.js';
import { Breaker, type BreakerOptions } from './breaker.js';
import type { ReplicaLoad } from './load-readers.js';
import { groupMembers, type GroupMember } from './groups.js';
import { probeTarget } from './probe.js';
import type { ReplicaCandidate } from './replica-choice.js';
import { replicaTargets, type ReplicaTarget } from './targets.js';

interface TargetState {
  state: PeerState;
  breaker: Breaker;
  models: string[] | null;
  load: ReplicaLoad | null;
  inFlightHere: number;
  lastSeen: number | null;
  error: string | null;
  /** A token read from token_file at the last check (never logged). */
  fileToken: string | null;
}

export interface PeerDirectoryDeps {
  config: () => ResolvedConfig;
  env?: NodeJS.ProcessEnv;
  now?: () => number;
  onState?: (event: PeerStateEventData) => void;
  onBreaker?: (event: PeerBreakerEventData) => void;
}

/** A remote replica of a model, with what the choice needs (replica-choice.ts). */
export interface RemoteReplica extends ReplicaCandidate {
  target: ReplicaTarget;
}

export class PeerDirectory {
  private readonly states = new Map<string, TargetState>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: PeerDirectoryDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Whether any target is configured: when none is, the dispatcher's path is the one it had without peers. */
  get active(): boolean {
    const config = this.deps.config();
    return replicaTargets(config).some((t) => t.enabled) || Object.keys(config.peers.models).length > 0;
  }

  /** The members of the explicit replica group (peers.toml `[models.<id>]`) named `model`, if there is one (groups.ts). */
  groupMembers(model: string, fromPeer: boolean): GroupMember[] | undefined {
    return groupMembers(model, this.deps.config(), { fromPeer });
  }

  /** Health checks now and then every [health].interval_s (read anew each time), until stop(). */
  start(): void {
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(tick), this.deps.config().peers.health.interval_s * 1000);
      this.timer.unref();
    };
    void this.refresh().finally(() => this.timer === undefined && tick());
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** Check every enabled target now (one round at a time: a call during a round joins it). */
  refresh(): Promise<void> {
    this.refreshing ??= Promise.all(replicaTargets(this.deps.config()).filter((t) => t.enabled).map((t) => this.check(t))).then(() => undefined).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  views(): PeerView[] {
    return replicaTargets(this.deps.config()).map((t) => {
      const s = this.stateOf(t);
      return {
        name: t.name, kind: t.kind, target: t.key, url: t.baseUrl, enabled: t.enabled, weight: t.weight,
        state: t.enabled ? s.state : 'disabled',
        breaker: s.breaker.view(),
        models: s.models, load: s.load, in_flight_here: s.inFlightHere,
        last_seen: s.lastSeen === null ? null : new Date(s.lastSeen).toISOString(),
        error: s.error,
      };
    });
  }

  /** The enabled remote targets whose last known model list has `model`, with their load and breaker. */
  replicasServing(model: string, kinds?: ReadonlySet<ReplicaTarget['kind']>): RemoteReplica[] {
    const now = this.now();
    const out: RemoteReplica[] = [];
    for (const target of replicaTargets(this.deps.config())) {
      if (!target.enabled || (kinds && !kinds.has(target.kind))) continue;
      const s = this.stateOf(target);
      if (!s.models?.includes(model)) continue;
      out.push(this.replicaFrom(target, s, model, now));
    }
    return out;
  }

  /**
   * The target `key` (`peer:<name>`, `upstream:<name>`) as a replica of `model`, whatever its
   * last model list says (an explicit group names it); undefined when it is not a configured,
   * enabled target of the directory (an upstream of kind openai is not one).
   */
  replica(key: string, model: string): RemoteReplica | undefined {
    const target = replicaTargets(this.deps.config()).find((t) => t.key === key);
    if (!target?.enabled) return undefined;
    return this.replicaFrom(target, this.stateOf(target), model, this.now());
  }

  private replicaFrom(target: ReplicaTarget, s: TargetState, model: string, now: number): RemoteReplica {
    const reported = s.load?.in_flight ?? 0;
    return {
      id: target.key, target, weight: target.weight,
      loaded: s.load?.loaded.includes(model) ?? false,
      // The peer's own count includes what this gateway sent it at its last check: the larger of the two.
      inFlight: Math.max(s.inFlightHere, reported),
      // A target its last health check found down gets no request, even before its breaker
      // has counted enough failures to open: the check is the fresher news.
      available: s.state !== 'down' && s.breaker.available(now),
    };
  }

  /** Count a request in flight to `key`; the returned function ends it. */
  begin(key: string): () => void {
    const s = this.states.get(key);
    if (!s) return () => undefined;
    s.inFlightHere++;
    return () => void s.inFlightHere--;
  }

  /** Take the way through `key`'s breaker (a half-open probe when its backoff elapsed). */
  acquire(key: string): boolean {
    return this.states.get(key)?.breaker.acquire(this.now()) ?? true;
  }

  succeeded(key: string): void {
    this.states.get(key)?.breaker.success();
  }

  failed(key: string, reason: string): void {
    this.states.get(key)?.breaker.failure(this.now(), reason);
  }

  /** Headers for a request to `target`: its configured ones and its token (never log them). */
  headersFor(target: ReplicaTarget): Record<string, string> {
    const token = (target.tokenEnv ? (this.deps.env ?? process.env)[target.tokenEnv] : undefined) ?? this.stateOf(target).fileToken;
    return token ? { ...target.headers, authorization: `Bearer ${token}` } : { ...target.headers };
  }

  private breakerOptions(): BreakerOptions {
    const h = this.deps.config().peers.health;
    return { failures: h.breaker_failures, backoffMs: h.breaker_backoff_s * 1000, maxBackoffMs: h.breaker_backoff_max_s * 1000 };
  }

  private stateOf(target: ReplicaTarget): TargetState {
    let s = this.states.get(target.key);
    if (!s) {
      const breaker = new Breaker(this.breakerOptions(), (change) => this.deps.onBreaker?.({ peer: target.name, target: target.key, ...change }));
      s = { state: 'unknown', breaker, models: null, load: null, inFlightHere: 0, lastSeen: null, error: null, fileToken: null };
      this.states.set(target.key, s);
    }
    return s;
  }

  private async check(target: ReplicaTarget): Promise<void> {
    const s = this.stateOf(target);
    s.breaker.configure(this.breakerOptions());
    const timeoutMs = this.deps.config().peers.health.timeout_s * 1000;
    try {
      if (target.tokenFile) s.fileToken = (await readFile(target.tokenFile, 'utf8')).split('\n')[0]!.trim() || null;
      const result = await probeTarget({ kind: target.kind, baseUrl: target.baseUrl, origin: target.origin, headers: this.headersFor(target), staticModels: target.staticModels, timeoutMs });
      s.models = result.models;
      s.load = result.load;
      s.lastSeen = this.now();
      s.error = null;
      this.move(target, s, 'up');
      // A health check is a probe too: an open breaker closes once its backoff has elapsed.
      if (s.breaker.acquire(this.now())) s.breaker.success();
    } catch (error) {
      // A token file that cannot be read is named by path only; its content never appears.
      s.error = (error as { code?: string }).code === 'ENOENT' ? `token_file ${target.tokenFile} cannot be read` : (error as Error).message;
      this.move(target, s, 'down');
      s.breaker.failure(this.now(), s.error);
    }
  }

  private move(target: ReplicaTarget, s: TargetState, to: PeerState): void {
    if (s.state === to) return;
    const from = s.state;
    s.state = to;
    this.deps.onState?.({ peer: target.name, target: target.key, from, to, error: s.error });
  }
}
