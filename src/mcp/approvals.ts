// The approvals queue (docs/mcp.md, "Approvals"): a call to a gated tool waits here until someone
// approves or denies it, or until [mcp].approval_timeout_s expires it. A call joins a pending
// entry (hit_count) only when it is the very call that entry shows: same tool, same caller,
// same arguments; approving an entry must never run arguments nobody saw. In memory: a
// pending call belongs to a request in flight, which does not outlive the gateway either.
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../protocol/canonical-json.js';
import { SvcError } from '../protocol/errors.js';
import type { ApprovalEntry, ApprovalEventData } from '../protocol/mcp.js';
import type { ToolCaller } from './tool-host.js';

export type Decision = 'approved' | 'denied' | 'expired';

export interface ApprovalHooks {
  timeoutMs(): number;
  onEnqueued(entry: ApprovalEntry): void;
  /** Each decision and each outcome of an approved call. */
  onResolved(entry: ApprovalEntry): void;
}

/**
 * What two gated calls must share to join one entry: the tool, the caller (its identity, its
 * client and its agent) and every argument, compared canonically so key order does not count.
 */
export function joinKey(tool: string, caller: Pick<ToolCaller, 'client' | 'identity' | 'agent'>, args: Record<string, unknown>): string {
  return canonicalJson([tool, caller.identity ?? null, caller.client, caller.agent ?? null, args]);
}

interface Pending {
  entry: ApprovalEntry;
  key: string;
  decision: Promise<Decision>;
  decide(decision: Decision): void;
  timer: NodeJS.Timeout;
}

const KEEP_RESOLVED = 200;
/**
 * Most entries pending at once (docs/troubleshooting.md, "Bounded stores"): each belongs to a
 * request in flight, and the queue is what an approver reads; one more call fails at once.
 */
export const MAX_PENDING = 256;
/** A resolved entry keeps its call's result up to this size (JSON); a larger one as a note of its size. */
export const RESULT_KEPT_MAX_BYTES = 64 * 1024;

export class ApprovalQueue {
  private readonly pending = new Map<string, Pending>();
  /** Resolved entries, newest last, so a late approve says already_resolved instead of not_found. */
  private readonly resolved = new Map<string, ApprovalEntry>();
  private readonly listeners = new Set<(event: ApprovalEventData) => void>();

  constructor(private readonly hooks: ApprovalHooks) {}

  /** Enqueue a call (or join the identical pending one); the promise settles with the decision. */
  enqueue(call: { tool: string; server: string; args: Record<string, unknown>; client: string; key: string }): { entry: ApprovalEntry; decision: Promise<Decision> } {
    const key = call.key;
    for (const waiting of this.pending.values()) {
      if (waiting.key === key) {
        waiting.entry.hit_count++;
        return { entry: { ...waiting.entry }, decision: waiting.decision };
      }
    }
    this.refuseWhenFull(call.tool);
    const now = Date.now();
    const timeoutMs = this.hooks.timeoutMs();
    const entry: ApprovalEntry = {
      id: randomUUID().replace(/-/g, ''),
      tool: call.tool,
      server: call.server,
      args: call.args,
      client_id: call.client,
      enqueued_at: new Date(now).toISOString(),
      state: 'pending',
      hit_count: 1,
      decided_at: null,
      decided_by: null,
      expires_at: new Date(now + timeoutMs).toISOString(),
      result: null,
      error: null,
    };
    let decide!: (decision: Decision) => void;
    const decision = new Promise<Decision>((resolve) => (decide = resolve));
    const timer = setTimeout(() => this.resolve(entry.id, 'expired', 'timeout'), timeoutMs);
    timer.unref();
    this.pending.set(entry.id, { entry, key, decision, decide, timer });
    this.hooks.onEnqueued({ ...entry });
    this.emit({ kind: 'enqueued', entry: { ...entry } });
    return { entry: { ...entry }, decision };
  }

  /** Pending entries, oldest first. */
  list(): ApprovalEntry[] {
    return [...this.pending.values()].map((p) => ({ ...p.entry }));
  }

  get(id: string): ApprovalEntry | undefined {
    const entry = this.pending.get(id)?.entry ?? this.resolved.get(id);
    return entry ? { ...entry } : undefined;
  }

  /** Record the decision; the waiting call then runs (approved) or fails (denied). */
  approve(id: string, by: string): ApprovalEntry {
    return this.resolve(id, 'approved', by);
  }

  deny(id: string, by: string): ApprovalEntry {
    return this.resolve(id, 'denied', by);
  }

  /** The approved call ran: executed with its result, or failed with its error. */
  complete(id: string, outcome: { ok: true; result: unknown } | { ok: false; error: string }): void {
    const entry = this.resolved.get(id);
    if (!entry || entry.state !== 'approved') return;
    entry.state = outcome.ok ? 'executed' : 'failed';
    if (outcome.ok) entry.result = keptResult(outcome.result);
    else entry.error = outcome.error;
    this.hooks.onResolved({ ...entry });
    this.emit({ kind: entry.state, entry: { ...entry } });
  }

  /** Listen to the queue: a snapshot of the pending entries first, then each change. */
  subscribe(listener: (event: ApprovalEventData) => void): () => void {
    listener({ kind: 'snapshot', entries: this.list() });
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Deny everything pending (shutdown): the calls waiting end instead of hanging. */
  close(): void {
    for (const id of [...this.pending.keys()]) this.resolve(id, 'denied', 'shutdown');
  }

  private resolve(id: string, decision: Decision, by: string): ApprovalEntry {
    const waiting = this.pending.get(id);
    if (!waiting) {
      const done = this.resolved.get(id);
      if (done) throw new SvcError('approvals.already_resolved', `approval ${id} is already ${done.state}`, { id, state: done.state });
      throw new SvcError('approvals.not_found', `no approval request has id ${id}`, { id });
    }
    clearTimeout(waiting.timer);
    this.pending.delete(id);
    const entry = waiting.entry;
    entry.state = decision;
    entry.decided_at = new Date().toISOString();
    entry.decided_by = by;
    if (decision === 'expired') entry.error = 'approval timed out';
    this.resolved.set(id, entry);
    if (this.resolved.size > KEEP_RESOLVED) this.resolved.delete(this.resolved.keys().next().value!);
    this.hooks.onResolved({ ...entry });
    this.emit({ kind: decision, entry: { ...entry } });
    waiting.decide(decision);
    return { ...entry };
  }

  private emit(event: ApprovalEventData): void {
    for (const listener of this.listeners) listener(event);
  }
  private refuseWhenFull(tool: string): void {
    if (this.pending.size < MAX_PENDING) return;
    throw new SvcError('mcp.tool_failed', `${tool} was not queued: ${MAX_PENDING} calls already wait for approval`, { tool, reason: 'approvals_full', pending: this.pending.size, max: MAX_PENDING });
  }
}

/** What a resolved entry keeps of a result: the KEEP_RESOLVED entries stay bounded whatever the tools answer. */
function keptResult(result: unknown): unknown {
  const bytes = Buffer.byteLength(JSON.stringify(result) ?? '');
  return bytes <= RESULT_KEPT_MAX_BYTES ? result : { truncated: true, bytes };
}
