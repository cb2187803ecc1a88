// McpService: the tool servers of this gateway (docs/mcp.md). Installed servers are records
// on disk, each with a supervisor; bundled servers are served by the gateway itself and only
// registered here. The routes, the CLI's answers, the omni loop and the dashboard all go
// through these methods. Dependencies come in one object so tests need no gateway.
import { SerialQueue } from '../lib/serial-queue.js';
import { VERSION } from '../lib/version.js';
import { SvcError } from '../protocol/errors.js';
import type { EventInput } from '../protocol/events.js';
import { connectionGuard, type McpInternals, type McpServiceDeps } from './service-types.js';
import type { ApprovalEntry, ApprovalEventData, McpServerRecord, McpServerView, ToolPolicyLists } from '../protocol/mcp.js';
import { BUNDLED_MCP_IDS } from '../protocol/mcp.js';
import { ApprovalQueue } from './approvals.js';
import { McpCatalog } from './service-catalog.js';
import { McpLifecycle } from './service-lifecycle.js';
import { McpRecordChanges } from './service-records.js';
import { ServerSupervisor } from './supervisor.js';

export type { McpServiceDeps, McpSettings } from './service-types.js';
import { ToolCalls, type ToolServerHandle } from './tool-calls.js';
import { toolServerHandles } from './service-handles.js';
import type { BundledTool, OfferedTool, ToolCallOptions, ToolCaller, ToolHost, ToolResult } from './tool-host.js';
import { bundledView, installedView } from './views.js';
import { loadRecords } from './records.js';
import { DEFAULT_TOOL_POLICY } from './policy.js';
import { loggedArgs } from './logged-args.js';

export class McpService implements ToolHost {
  private readonly internals: McpInternals;
  private loading: Promise<void> | null = null;
  private readonly tools: ToolCalls;
  readonly lifecycle: McpLifecycle;
  private readonly changes: McpRecordChanges;
  private readonly catalogs: McpCatalog;
  private readonly queue: ApprovalQueue;

  constructor(private readonly deps: McpServiceDeps) {
    const servers = new Map<string, ServerSupervisor>();
    const bundled = new Map<string, { tools: BundledTool[]; policy: ToolPolicyLists }>();
    this.internals = {
      deps, servers, bundled,
      writes: deps.writes ?? new SerialQueue(),
      loaded: () => this.load(),
      supervise: (record) => this.supervise(record),
      installed: (id, action) => {
        if (bundled.has(id) || (BUNDLED_MCP_IDS as readonly string[]).includes(id)) throw new SvcError('mcp.bundled', `${id} is served by svc itself: it cannot be ${action}`, { id });
        const sup = servers.get(id);
        if (!sup) throw new SvcError('mcp.not_found', `no tool server has id ${JSON.stringify(id)}`, { id });
        return sup;
      },
    };
    this.queue = new ApprovalQueue({
      timeoutMs: () => deps.settings().approval_timeout_s * 1000,
      onEnqueued: (entry) => deps.publish({ type: 'approval.enqueued', source: `mcp:${entry.server}`, severity: 'warn', message: `approval needed: ${entry.tool} (${entry.id})`, data: { entry } }),
      onResolved: (entry) => deps.publish({ type: 'approval.resolved', source: `mcp:${entry.server}`, message: `approval ${entry.id} of ${entry.tool}: ${entry.state}`, data: { entry } }),
    });
    this.tools = new ToolCalls({
      handles: () => this.handles(),
      approvals: this.queue,
      toolTimeoutMs: () => deps.settings().tool_timeout_s * 1000,
      onToolEvent: (outcome, data) => deps.publish({
        type: `mcp.tool.${outcome}`, source: `mcp:${data.server}`, severity: outcome === 'failed' ? 'warn' : 'info',
        message: `${data.server}__${data.tool}: ${outcome}${data.error ? ` (${data.error})` : ''}`, data,
      } as EventInput),
      onAgentCall: (call) => deps.record({
        action: 'mcp.tool_call', target: call.name, actor: `agent:${call.agent}`, outcome: call.outcome === 'executed' ? 'ok' : 'error',
        ...(call.error && { message: call.error }),
        // Stored content (memory_add's text and metadata) stays out of the log (logged-args.ts).
        details: { agent: call.agent, tool: call.name, ...loggedArgs(call.args), gated: call.gated, client_id: call.client, outcome: call.outcome },
      }),
    });
    this.lifecycle = new McpLifecycle(this.internals);
    this.changes = new McpRecordChanges(this.internals);
    this.catalogs = new McpCatalog(this.internals);
  }

  /** Every server, installed and bundled (GET /api/mcp/servers). */
  async list(): Promise<McpServerView[]> {
    await this.load();
    const bundled = [...this.internals.bundled].map(([id, b]) => bundledView(id, b.tools, b.policy, VERSION));
    return [...bundled, ...[...this.internals.servers.values()].map(installedView)];
  }

  /** One server; mcp.not_found when no server has the id. */
  async get(id: string): Promise<McpServerView> {
    await this.load();
    const b = this.internals.bundled.get(id);
    if (b) return bundledView(id, b.tools, b.policy, VERSION);
    const sup = this.internals.servers.get(id);
    if (!sup) throw new SvcError('mcp.not_found', `no tool server has id ${JSON.stringify(id)}`, { id });
    return installedView(sup);
  }

  /** POST /api/mcp/install: validate, install (npm), write the record, start it when enabled. */
  install(...args: Parameters<McpRecordChanges['install']>) { return this.changes.install(...args); }
  /** DELETE /api/mcp/<id>: stop it, remove its record and its state folder. */
  uninstall(...args: Parameters<McpRecordChanges['uninstall']>) { return this.changes.uninstall(...args); }
  /** PATCH /api/mcp/<id>/config: env, secrets (checked against api.env), enabled, args, url; restarts a running server. */
  patchConfig(...args: Parameters<McpRecordChanges['patchConfig']>) { return this.changes.patchConfig(...args); }
  /** PATCH /api/mcp/<id>/tools: the allow/gated/blocked lists and default (bundled servers too). */
  patchTools(...args: Parameters<McpRecordChanges['patchTools']>) { return this.changes.patchTools(...args); }
  /** POST /api/mcp/<id>/start: resolves when ready; mcp.unavailable when it could not start. */
  start(...args: Parameters<McpLifecycle['start']>) { return this.lifecycle.start(...args); }
  /** POST /api/mcp/<id>/stop: graceful stop. */
  stop(...args: Parameters<McpLifecycle['stop']>) { return this.lifecycle.stop(...args); }
  /** POST /api/mcp/<id>/restart. */
  restart(...args: Parameters<McpLifecycle['restart']>) { return this.lifecycle.restart(...args); }
  /** POST /api/mcp/<id>/test: connect, list tools, call nothing. */
  test(...args: Parameters<McpLifecycle['test']>) { return this.lifecycle.test(...args); }
  /** GET /api/mcp/<id>/logs: the last stderr lines (a ring of 200). */
  logs(...args: Parameters<McpLifecycle['logs']>) { return this.lifecycle.logs(...args); }
  /** GET /api/mcp/catalog: the curated list and the registry's cached part. */
  catalog() { return this.catalogs.catalog(); }
  /** POST /api/mcp/catalog/refresh: read [mcp].registry_url's servers again. */
  refreshCatalog() { return this.catalogs.refresh(); }

  /** Start every enabled installed server (at boot, in the background). */
  async startEnabled(): Promise<void> {
    await this.load();
    await Promise.allSettled([...this.internals.servers.values()].filter((s) => s.record.enabled).map((s) => s.start('boot')));
  }

  /** Stop every server and deny what waits for approval (shutdown). */
  async stopAll(): Promise<void> {
    this.queue.close();
    await Promise.allSettled([...this.internals.servers.values()].map((s) => s.stop('shutdown')));
  }

  /** GET /api/agent/approvals: the pending entries. */
  listApprovals(): ApprovalEntry[] { return this.queue.list(); }
  /** One entry, pending or recently resolved. */
  getApproval(id: string): ApprovalEntry | undefined { return this.queue.get(id); }
  /** Approve: returns once recorded (approvals.not_found, approvals.already_resolved); the waiting call then runs. */
  approve(id: string, by = 'api'): ApprovalEntry { return this.queue.approve(id, by); }
  /** Deny: the waiting call fails with mcp.tool_failed (reason denied). */
  deny(id: string, by = 'api'): ApprovalEntry { return this.queue.deny(id, by); }
  /** GET /api/agent/approvals/events: a snapshot, then each change; returns the unsubscribe. */
  subscribeApprovals(listener: (event: ApprovalEventData) => void): () => void { return this.queue.subscribe(listener); }

  /** ToolHost: the tools the caller may use, of enabled, ready servers. */
  offered(caller: ToolCaller): Promise<OfferedTool[]> {
    return this.load().then(() => this.tools.offered(caller));
  }

  /** ToolHost: one call with every policy applied (see tool-host.ts). */
  async call(name: string, args: Record<string, unknown>, caller: ToolCaller, options?: ToolCallOptions): Promise<ToolResult> {
    await this.load();
    return this.tools.call(name, args, caller, options);
  }

  /**
   * A bundled server's tools (its front end registers them at start); its stored policy applies,
   * else `options.policy` (svc-memory gates memory_delete), else the default. `options.enabled`:
   * while it says false, the server's tools are offered to no one (svc-memory with memory off).
   */
  registerBundled(id: string, tools: BundledTool[], options: { policy?: Partial<ToolPolicyLists>; enabled?: () => boolean } = {}): void {
    const existing = this.internals.bundled.get(id);
    this.internals.bundled.set(id, { tools, policy: existing?.policy ?? { ...DEFAULT_TOOL_POLICY, ...options.policy }, enabled: options.enabled });
  }

  private load(): Promise<void> {
    return (this.loading ??= (async () => {
      const loaded = await loadRecords(this.deps.paths, BUNDLED_MCP_IDS);
      for (const problem of loaded.problems) this.deps.log?.(`svc: ${problem.severity === 'warning' ? 'warning' : 'error'}: ${problem.file}: ${problem.path ? `${problem.path}: ` : ''}${problem.message}`);
      for (const record of loaded.records.values()) this.supervise(record);
      for (const [id, policy] of loaded.bundledPolicies) {
        const b = this.internals.bundled.get(id);
        this.internals.bundled.set(id, { tools: b?.tools ?? [], policy, enabled: b?.enabled });
      }
    })());
  }

  private supervise(record: McpServerRecord): ServerSupervisor {
    const sup = new ServerSupervisor(record, {
      settings: () => {
        const s = this.deps.settings();
        return { pingIntervalMs: s.ping_interval_s * 1000, restartMax: s.restart_max, restartWindowMs: s.restart_window_s * 1000, backoffBaseMs: this.deps.backoffBaseMs ?? 500, startTimeoutMs: Math.max(30_000, s.tool_timeout_s * 1000) };
      },
      environment: (r) => this.lifecycle.environment(r),
      onState: (change) => {
        this.deps.publish({ type: 'mcp.state', source: `mcp:${change.server}`, severity: change.to === 'error' ? 'error' : 'info', message: `tool server ${change.server}: ${change.from} -> ${change.to} (${change.reason})`, data: change });
        if (change.to === 'error' || change.to === 'ready' || change.to === 'stopped') {
          this.deps.record({ action: 'mcp.state', kind: 'event', target: change.server, outcome: change.to === 'error' ? 'error' : 'ok', message: `${change.from} -> ${change.to}: ${change.reason}`, details: { ...change } });
        }
      },
      guard: (r) => connectionGuard(this.deps, r),
      onToolsChanged: (server) => this.deps.publish({ type: 'mcp.updated', source: `mcp:${server}`, message: `tool server ${server}: its tool list changed`, data: { server, keys: ['tools'] } }),
    });
    this.internals.servers.set(record.id, sup);
    return sup;
  }

  private handles(): ToolServerHandle[] {
    return toolServerHandles(this.internals, this.lifecycle);
  }
}
