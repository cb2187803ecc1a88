// Starting, stopping, testing and reading the logs of installed servers (McpService's part
// that drives the supervisors). A start resolves when the server is ready; a failed one is
// mcp.unavailable with the state and the stderr tail.
import { SvcError } from '../protocol/errors.js';
import type { McpLogsPayload, McpServerRecord, McpServerView, McpTestPayload } from '../protocol/mcp.js';
import { LogRing } from '../lib/supervision/log-ring.js';
import { missingSecrets } from './records.js';
import { connectionGuard, type McpInternals } from './service-types.js';
import type { ServerSupervisor } from './supervisor.js';
import { bundledPath, installedView, listedOf, toolViews } from './views.js';

export class McpLifecycle {
  constructor(private readonly x: McpInternals) {}

  async start(id: string, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'started');
    if (!sup.record.enabled) throw this.unavailable(sup, 'it is disabled (PATCH its config with enabled: true)');
    await sup.start('start').catch(() => {
      throw this.unavailable(sup, 'it did not start');
    });
    this.x.deps.record({ action: 'mcp.start', target: id, actor, details: { pid: sup.pid } });
    return installedView(sup);
  }

  async stop(id: string, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'stopped');
    await sup.stop('stop');
    this.x.deps.record({ action: 'mcp.stop', target: id, actor });
    return installedView(sup);
  }

  async restart(id: string, actor = 'api'): Promise<McpServerView> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'restarted');
    if (!sup.record.enabled) throw this.unavailable(sup, 'it is disabled');
    await sup.stop('restart');
    await sup.start('restart').catch(() => {
      throw this.unavailable(sup, 'it did not start again');
    });
    this.x.deps.record({ action: 'mcp.restart', target: id, actor, details: { pid: sup.pid } });
    return installedView(sup);
  }

  /** Start an enabled server that is not running (a call's on-demand start). */
  async ensureReady(sup: ServerSupervisor): Promise<void> {
    if (sup.state === 'ready') return;
    if (!sup.record.enabled) throw this.unavailable(sup, 'it is disabled');
    if (sup.crashLoop) throw this.unavailable(sup, 'it is crash-looping');
    await sup.start('on demand').catch(() => {
      throw this.unavailable(sup, 'it did not start');
    });
  }

  /** Connect, list tools, call nothing. A running server is asked through its own connection. */
  async test(id: string): Promise<McpTestPayload> {
    await this.x.loaded();
    const started = Date.now();
    const bundled = this.x.bundled.get(id);
    if (bundled) {
      return { server_id: id, ok: true, transport: 'streamable-http', server_version: `${id} (${bundledPath(id)})`, tools: toolViews(bundled.tools.map(listedOf), bundled.policy), resources: 0, prompts: 0, ms: Date.now() - started, error: null };
    }
    const sup = this.x.installed(id, 'tested');
    const base = { server_id: id, transport: sup.record.transport, ms: 0 };
    const running = sup.state === 'ready' ? sup.session : null;
    const { ClientSession } = await import('./client-session.js');
    const session = running ?? new ClientSession(sup.record, await this.environment(sup.record).catch(() => ({})), new LogRing({ capacity: 50 }), { onClosed: () => undefined, onToolsChanged: () => undefined }, connectionGuard(this.x.deps, sup.record));
    try {
      if (!running) await session.open(30_000);
      else await session.ping(10_000);
      const tools = toolViews(session.tools, sup.record.tools);
      return { ...base, ok: true, server_version: session.serverVersion, tools, resources: session.resources, prompts: session.prompts, ms: Date.now() - started, error: null };
    } catch (error) {
      return { ...base, ok: false, server_version: null, tools: [], resources: 0, prompts: 0, ms: Date.now() - started, error: (error as Error).message };
    } finally {
      if (!running) await session.close();
    }
  }

  async logs(id: string, limit = 200): Promise<McpLogsPayload> {
    await this.x.loaded();
    const sup = this.x.installed(id, 'asked for logs');
    return { server_id: id, lines: sup.logs(Math.max(1, Math.min(limit, 200))) };
  }

  /** The child's environment: the record's env, then its secrets from api.env (read at each start). */
  async environment(record: McpServerRecord): Promise<Record<string, string>> {
    if (Object.keys(record.secrets).length === 0) return { ...record.env };
    const apiEnv = await this.x.deps.readApiEnv();
    const missing = missingSecrets(record.id, record.secrets, apiEnv);
    if (missing.length > 0) throw new Error(`secrets missing from api.env: ${missing.map((p) => `${p.path} (${p.message})`).join(', ')}`);
    const env: Record<string, string> = { ...record.env };
    for (const [name, key] of Object.entries(record.secrets)) env[name] = apiEnv[key]!;
    return env;
  }

  private unavailable(sup: ServerSupervisor, why: string): SvcError {
    return new SvcError('mcp.unavailable', `tool server ${sup.record.id} is not available: ${why}${sup.lastError ? ` (${sup.lastError.split('\n')[0]})` : ''}`, { id: sup.record.id, state: sup.state, last_error: sup.lastError });
  }
}
