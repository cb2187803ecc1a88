// The event stream's wire types (docs/api.md, "Events"), shared by the server, the CLI and
// the dashboard. An event is `{id, ts, type, severity, source, message, data}`; `data` is
// typed by `type`. Adding an event type is adding one row to EventPayloads: the union, the
// list of known types (which the `type` filter checks globs against) and the publisher's
// argument types all follow from it.
import type { ApprovalEntry, McpStateEventData, McpToolEventData } from './mcp.js';
import type { PeerBreakerEventData, PeerStateEventData } from './peers.js';
import type { SlotViewState } from './slots.js';
import type { StackSlotResult } from './stacks.js';

/** The embedded memory database process moved from one state to another. */
export interface MemoryEngineEventData {
  from: MemoryEngineState;
  to: MemoryEngineState;
  reason: string;
  pid: number | null;
}
export type MemoryEngineState = 'stopped' | 'starting' | 'ready' | 'stopping' | 'crashed' | 'error';

export const EVENT_SEVERITIES = ['info', 'warn', 'error'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

/** A slot's runtime state (a disabled slot is a stopped one whose file says enabled = false). */
export type SlotRunState = Exclude<SlotViewState, 'disabled'>;

export interface SlotStateData {
  slot: string;
  from: SlotRunState;
  to: SlotRunState;
  reason: string;
  /** What the transition knows besides: the model being started, the pid, an exit code, a stderr tail. */
  details?: Record<string, unknown>;
}

/** The GPU arbiter's state, as /api/status shows it and the `gpu.mode` event carries it. */
export interface GpuModeView {
  mode: 'inference' | 'image';
  image_slot: string | null;
  stopped_slots: string[];
  since: string | null;
  last_image_use_at: string | null;
  idle_restore_minutes: number | null;
  restore_at: string | null;
}

export interface GpuModeData extends GpuModeView {
  reason: string;
}

/** One activity row as recorded (secret-named keys in details already `***`). */
export interface ActivityData {
  action: string;
  target: string;
  actor: string;
  kind: 'action' | 'event';
  outcome: 'ok' | 'error';
  message: string;
  details: Record<string, unknown>;
}

export interface SlotMetricsData {
  slot: string;
  tokens_per_second: number;
  in_flight: number;
  ttft_ms_avg: number | null;
  requests: { ok: number; error: number; cancelled: number };
}

/** What every pull.* event carries. */
export interface PullEventData {
  model_id: string;
  job: string;
  ref: string;
  bytes_done: number;
  bytes_total: number;
}

/** Every update event: the job, what it does, from which version to which. */
export interface UpdateEventData {
  job: string;
  kind: 'update' | 'rollback';
  from: string;
  to: string;
}

/** Which bounded store pruned, and why (docs/troubleshooting.md, "Bounded stores"). */
export type PrunedStore = 'responses' | 'activity' | 'images';
export type PruneReason = 'expired' | 'max_rows' | 'max_bytes' | 'max_files';

/** A bounded store removed its oldest entries: expired ones, or those beyond a cap. */
export interface StorePrunedData {
  store: PrunedStore;
  reason: PruneReason;
  removed: number;
  /** What the store holds after the prune; null where it does not count them. */
  rows: number | null;
  bytes: number | null;
}

/** Every event type and its payload. */
export interface EventPayloads {
  'slot.state': SlotStateData;
  'slot.created': { slot: string; file: string; type: string; provider: string; model: string; port: number; device: string };
  'slot.edited': { slot: string; keys: string[]; restart_required: boolean };
  'slot.deleted': { slot: string; file: string; was: SlotViewState; force: boolean };
  /** reason: idle, capacity or pressure (src/slots/eviction.ts). */
  'slot.evicted': { slot: string; reason: string };
  'settings.changed': { keys: string[] };
  'config.reloaded': { slots: string[]; warnings: number };
  'gpu.mode': GpuModeData;
  'model.registered': { model: string; path: string; source: 'api' | 'scan' };
  'model.removed': { model: string; path: string; force: boolean };
  /** before: the slot's previous [model].default, "" when it had none. */
  'model.assigned': { model: string; slot: string; before: string };
  /** A user profile written through /api/profiles; `slots` use it and take the change at their next start. */
  'profile.created': { profile: string; cloned_from: string | null };
  'profile.updated': { profile: string; slots: string[]; restarted: string[] };
  'profile.deleted': { profile: string; slots: string[]; force: boolean };
  /** A user stack written through /api/stacks (create, import and snapshot are all `created`). */
  'stack.created': { stack: string };
  'stack.updated': { stack: string };
  'stack.deleted': { stack: string };
  /** A stack apply (POST /api/stacks/<slug>/apply): guards passed, files written, each slot converged, done; or refused. */
  'stack.apply.started': { stack: string; creates: string[]; unloads: string[]; slots: string[] };
  'stack.apply.committed': { stack: string; hash: string; commit_ms: number };
  'stack.apply.slot': { stack: string } & StackSlotResult;
  'stack.apply.completed': { stack: string; failed: string[]; converge_ms: number };
  'stack.apply.failed': { stack: string; code: string };
  /** An update or rollback job (docs/updates.md): started, each state entered, and how it ended. */
  'update.started': UpdateEventData;
  'update.progress': UpdateEventData & { state: string };
  'update.applied': UpdateEventData;
  'update.failed': UpdateEventData & { code: string };
  'update.rolled_back': UpdateEventData & { reason: string };
  /** Model pulls (docs/api.md, "Model pulls"): progress is published at each 10 %. */
  'pull.queued': PullEventData;
  'pull.started': PullEventData;
  'pull.progress': PullEventData & { pct: number; rate: number; eta_s: number | null };
  'pull.completed': PullEventData & { sha256: string | null; path: string | null };
  'pull.failed': PullEventData & { error: string; error_code: string };
  'pull.cancelled': PullEventData & { discard: boolean };
  /** A finished job left the list (DELETE /api/models/pulls/<job>). */
  'pull.dismissed': PullEventData & { state: string; discard: boolean };
  /** A token was created or revoked: its id, label and scope, never the token. Only admins see these. */
  'auth.token_created': { id: string; label: string; scope: string };
  'auth.token_revoked': { id: string; label: string; scope: string };
  /** Tool servers (docs/mcp.md): each state change, install, uninstall and change of a record. */
  'mcp.state': McpStateEventData;
  'mcp.installed': { server: string; transport: string; spec: string };
  'mcp.uninstalled': { server: string };
  'mcp.updated': { server: string; keys: string[] };
  /** Each step of a tool call, from the omni loop or /mcp/*. */
  'mcp.tool.invoked': McpToolEventData;
  'mcp.tool.enqueued': McpToolEventData;
  'mcp.tool.approved': McpToolEventData;
  'mcp.tool.denied': McpToolEventData;
  'mcp.tool.executed': McpToolEventData;
  'mcp.tool.failed': McpToolEventData;
  /** The approvals queue: an entry enqueued, and each decision on it (approved, denied, expired, executed, failed). */
  'approval.enqueued': { entry: ApprovalEntry };
  'approval.resolved': { entry: ApprovalEntry };
  /** The embedded memory database process (docs/memory.md): each state change. */
  'memory.engine': MemoryEngineEventData;
  /** Memory (docs/memory.md): each write and delete, never the texts. */
  'memory.added': { bank: string; id: string; agent: string; private: boolean };
  'memory.deleted': { banks: string[]; ids: string[]; deleted: number; agent: string };
  'memory.bank_created': { bank: string };
  'memory.bank_deleted': { bank: string; items: number };
  /** svc-memory's memory_curate changed the tags of items (never the texts). */
  'memory.retagged': { banks: string[]; ids: string[]; updated: number; agent: string };
  /** Graph extraction (docs/memory.md "Graph"): an item's graph written, given up on, a retry, a settings change. */
  'memory.graph.built': { bank: string; id: string; entities: number; relations: number; attempts: number };
  'memory.graph.failed': { bank: string; id: string; attempts: number; error: string };
  'memory.graph.retry': { queued: number; skipped: number; banks: string[] };
  'memory.graph.updated': { changed: string[]; enabled: boolean; extraction_slot: string; llm_timeout_s: number; propagated: boolean; error: string | null };
  /** The hindsight engine (docs/memory.md "Degraded mode"): daemon down, writes kept in the outbox; and back, the outbox replayed. */
  'memory.engine.degraded': { engine: string; reason: string; pending: number };
  'memory.engine.promoted': { engine: string; replayed: number };
  /** A hermes provisioning run ended (docs/agents.md, "hermes"): which phases failed, if any. */
  'agent.provisioned': { agent: string; ok: boolean; dry_run: boolean; failed: string[]; hermes_version: string | null };
  /** A persona was made the active one; hot_reload says whether the running agent took the nudge. */
  'agent.persona_activated': { agent: string; persona: string; hot_reload_ok: boolean };
  /** Bank administration (docs/memory.md, "Banks"): a PUT or PATCH of a bank's fields, an import, a document deleted. */
  'memory.bank_updated': { bank: string; fields: string[] };
  'memory.imported': { bank: string; added: number; replaced: number; skipped: number };
  'memory.document_deleted': { bank: string; document_id: string; deleted: number };
  /** A re-embedding of a bank with the current embedding model (docs/memory.md, "Re-embedding"). */
  'memory.reembed.started': { job: string; bank: string; model: string; total: number };
  'memory.reembed.progress': { job: string; bank: string; done: number; total: number };
  'memory.reembed.completed': { job: string; bank: string; done: number; from_dimension: number | null; to_dimension: number };
  'memory.reembed.failed': { job: string; bank: string; done: number; error: string };
  activity: ActivityData;
  'metrics.slot': SlotMetricsData;
  /** Events this stream missed: its client read too slowly, or it resumed from an id the ring no longer holds. */
  'events.gap': { dropped: number };
  /** Agents (docs/agents.md): an install, switch or upgrade job and its steps. */
  'agent.install.started': AgentJobEventData;
  'agent.install.progress': AgentJobEventData & { step: string };
  'agent.install.done': AgentJobEventData & { version: string | null };
  'agent.install.failed': AgentJobEventData & { code: string };
  'agent.uninstalled': { agent: string; purge: boolean; removed: string[]; residual: Array<{ path: string; reason: string }>; tokens_revoked: number };
  'agent.upgraded': { agent: string; job: string; from: string | null; to: string };
  /** A peer or health-checked upstream went up or down (docs/scaling.md). */
  'peer.state': PeerStateEventData;
  /** A replica's circuit breaker moved (closed, open, half-open). */
  'peer.breaker': PeerBreakerEventData;
  /** `svc memory migrate unify --apply` (docs/memory.md "Unifying banks"): source banks copied into a target. */
  'memory.unified': { target: string; sources: string[]; added: number; replaced: number; skipped: number };
  /** `svc memory migrate --from hindsight --apply`: a Hindsight daemon's banks copied into the pgvector store. */
  'memory.migrated': { from: string; banks: string[]; added: number; skipped: number };
  /** A bounded store (stored responses, the activity log, the image cache) removed its oldest entries. */
  'store.pruned': StorePrunedData;
}

/** The common part of every agent job event: which job, which agent, what it does. */
export interface AgentJobEventData {
  job: string;
  agent: string;
  action: 'install' | 'switch' | 'upgrade';
}

export type EventType = keyof EventPayloads;

/** Checked against EventPayloads by the compiler: a type missing here, or one too many, fails to build. */
const EVENT_TYPE_SET: { [K in EventType]: true } = {
  'slot.state': true,
  'slot.created': true,
  'slot.edited': true,
  'slot.deleted': true,
  'slot.evicted': true,
  'settings.changed': true,
  'config.reloaded': true,
  'gpu.mode': true,
  'model.registered': true,
  'model.removed': true,
  'model.assigned': true,
  'profile.created': true,
  'profile.updated': true,
  'profile.deleted': true,
  'stack.created': true,
  'stack.updated': true,
  'stack.deleted': true,
  'stack.apply.started': true,
  'stack.apply.committed': true,
  'stack.apply.slot': true,
  'stack.apply.completed': true,
  'stack.apply.failed': true,
  'update.started': true,
  'update.progress': true,
  'update.applied': true,
  'update.failed': true,
  'update.rolled_back': true,
  'pull.queued': true,
  'pull.started': true,
  'pull.progress': true,
  'pull.completed': true,
  'pull.failed': true,
  'pull.cancelled': true,
  'pull.dismissed': true,
  'auth.token_created': true,
  'auth.token_revoked': true,
  'mcp.state': true,
  'mcp.installed': true,
  'mcp.uninstalled': true,
  'mcp.updated': true,
  'mcp.tool.invoked': true,
  'mcp.tool.enqueued': true,
  'mcp.tool.approved': true,
  'mcp.tool.denied': true,
  'mcp.tool.executed': true,
  'mcp.tool.failed': true,
  'approval.enqueued': true,
  'approval.resolved': true,
  'memory.engine': true,
  'memory.added': true,
  'memory.deleted': true,
  'memory.bank_created': true,
  'memory.bank_deleted': true,
  'memory.retagged': true,
  'memory.graph.built': true,
  'memory.graph.failed': true,
  'memory.graph.retry': true,
  'memory.graph.updated': true,
  'memory.engine.degraded': true,
  'memory.engine.promoted': true,
  'agent.provisioned': true,
  'agent.persona_activated': true,
  'memory.bank_updated': true,
  'memory.imported': true,
  'memory.document_deleted': true,
  'memory.reembed.started': true,
  'memory.reembed.progress': true,
  'memory.reembed.completed': true,
  'memory.reembed.failed': true,
  activity: true,
  'metrics.slot': true,
  'events.gap': true,
  'agent.install.started': true,
  'agent.install.progress': true,
  'agent.install.done': true,
  'agent.install.failed': true,
  'agent.uninstalled': true,
  'agent.upgraded': true,
  'peer.state': true,
  'peer.breaker': true,
  'memory.unified': true,
  'memory.migrated': true,
  'store.pruned': true,
};
export const EVENT_TYPES = Object.keys(EVENT_TYPE_SET) as EventType[];

interface EventEnvelope<T extends EventType> {
  /** Monotonic from 1; restarts at each boot (see `epoch` on GET /api/events). */
  id: number;
  /** ISO-8601 UTC. */
  ts: string;
  type: T;
  severity: EventSeverity;
  /** Who it is about: `slot:<name>`, `gateway`, `settings`, `models`, `gpu`, `activity`, `events`. */
  source: string;
  /** One human-readable line. */
  message: string;
  data: EventPayloads[T];
}

/** One event: a discriminated union over `type`. */
export type SvcEvent = { [T in EventType]: EventEnvelope<T> }[EventType];

/** What a publisher supplies; the bus adds id and ts, severity defaults to info. */
export type EventInput = { [T in EventType]: Omit<EventEnvelope<T>, 'id' | 'ts' | 'severity'> & { severity?: EventSeverity } }[EventType];

/** GET /api/events. */
export interface EventPagePayload {
  events: SvcEvent[];
  /** Pass back as `since` for the next poll. */
  next_since: number;
  /** Differs between boots of the gateway: when it changes, ids started again from 1. */
  epoch: string;
}
