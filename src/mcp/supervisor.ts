// The supervisor of one installed tool server: its state machine (state-machine.ts), start and
// graceful stop, health by MCP ping, restart with backoff when it exits, and the crash-loop cap
// (restart_max exits within restart_window_s → error, with the stderr tail in last_error).
// A remote server is connected and pinged the same way; when it stops answering it is error.
import type { McpServerRecord, McpState } from '../protocol/mcp.js';
import { decideRestart } from '../lib/supervision/restart-policy.js';
import type { ClientSession } from './client-session.js';
import { LineRing } from './line-ring.js';
import type { TargetGuard } from './url-guard.js';
import { moveAllowed } from './state-machine.js';

export interface SupervisorSettings {
  pingIntervalMs: number;
  restartMax: number;
  restartWindowMs: number;
  /** The first restart's delay; each further crash in the window doubles it (max 30 s). */
  backoffBaseMs: number;
  /** How long the spawn, handshake and first lists may take. */
  startTimeoutMs: number;
}

export interface SupervisorHooks {
  settings(): SupervisorSettings;
  /** The child's environment: the record's env and its secrets read from api.env. Throws when a secret is missing. */
  environment(record: McpServerRecord): Promise<Record<string, string>>;
  onState(change: { server: string; from: McpState; to: McpState; reason: string; pid: number | null }): void;
  onToolsChanged(server: string): void;
  /** The check of each connection a remote server's transport makes (url-guard.ts), null for none. */
  guard(record: McpServerRecord): TargetGuard | null;
}

export class ServerSupervisor {
  state: McpState;
  restarts = 0;
  lastError: string | null = null;
  /** Set when restart_max failures fell within restart_window_s: no more automatic restarts. */
  crashLoop = false;
  readonly stderr = new LineRing(200);
  session: ClientSession | null = null;
  private crashes: number[] = [];
  private generation = 0;
  private pingTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private starting: Promise<void> | null = null;

  constructor(public record: McpServerRecord, private readonly hooks: SupervisorHooks) {
    this.state = record.enabled ? 'stopped' : 'disabled';
  }

  get pid(): number | null {
    return this.state === 'ready' || this.state === 'starting' ? (this.session?.pid ?? null) : null;
  }

  /** Start (or join a start under way); resolves when ready, rejects when the start failed. */
  start(reason = 'start'): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    if (this.starting) return this.starting;
    // A start asked for (not the backoff's) begins a fresh count.
    if (this.crashLoop) this.forgetCrashes();
    this.clearRestart();
    if (this.state === 'disabled') this.move('stopped', 'enabled');
    const run: Promise<void> = this.spawn(reason).finally(() => {
      if (this.starting === run) this.starting = null;
    });
    this.starting = run;
    return run;
  }

  /** Stop gracefully (close the transport: stdin, SIGTERM, SIGKILL); `disable` leaves it disabled. */
  async stop(reason = 'stop', disable = false): Promise<void> {
    this.clearRestart();
    this.generation++;
    this.stopPing();
    const session = this.session;
    this.session = null;
    this.starting = null;
    if (this.state === 'ready' || this.state === 'starting' || this.state === 'error') this.move('stopping', reason, session?.pid ?? null);
    await session?.close();
    if (this.state === 'stopping') this.move(disable ? 'disabled' : 'stopped', reason);
    else if (disable && this.state === 'stopped') this.move('disabled', reason);
    this.forgetCrashes();
  }

  forgetCrashes(): void {
    this.crashes = [];
    this.crashLoop = false;
  }

  private async spawn(reason: string): Promise<void> {
    const generation = ++this.generation;
    this.move('starting', reason);
    let session: ClientSession | null = null;
    try {
      const env = await this.hooks.environment(this.record);
      if (generation !== this.generation) return;
      // The SDK loads with the first server started, not with the gateway (docs/performance.md).
      const { ClientSession } = await import('./client-session.js');
      if (generation !== this.generation) return;
      session = new ClientSession(this.record, env, this.stderr, {
        onClosed: () => this.lost(generation, 'the server exited'),
        onToolsChanged: () => this.hooks.onToolsChanged(this.record.id),
      }, this.hooks.guard(this.record));
      this.session = session;
      this.stderr.note(`starting (${reason})`);
      await session.open(this.hooks.settings().startTimeoutMs);
      if (generation !== this.generation) return void session.close();
      this.move('ready', 'connected', session.pid);
      this.startPing(generation);
    } catch (error) {
      if (generation !== this.generation) return;
      await session?.close();
      this.session = null;
      this.failed(`${(error as Error).message ?? String(error)}`);
      throw new Error(this.lastError ?? 'start failed', { cause: error });
    }
  }

  /** The connection ended on its own: a crash for stdio, an outage for a remote server. */
  private lost(generation: number, why: string): void {
    if (generation !== this.generation || this.state !== 'ready') return;
    this.generation++;
    this.stopPing();
    const session = this.session;
    this.session = null;
    void session?.close();
    this.failed(why);
  }

  /** After a failed start or a crash: restart with backoff, or error once it is a crash loop. */
  private failed(why: string): void {
    const tail = this.stderr.tail(20);
    this.lastError = tail ? `${why}\n${tail}` : why;
    this.stderr.note(why);
    const now = Date.now();
    this.crashes.push(now);
    const settings = this.hooks.settings();
    const decision = decideRestart(this.crashes, now, {
      backoffBaseMs: settings.backoffBaseMs,
      backoffMaxMs: 30_000,
      crashLoopCount: settings.restartMax,
      crashLoopWindowMs: settings.restartWindowMs,
    });
    if (!decision.restart) {
      this.crashLoop = true;
      this.move('error', `crash loop: ${settings.restartMax} failures within ${settings.restartWindowMs / 1000} s`);
      return;
    }
    this.move('error', `${why}; restarting in ${decision.delayMs} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.restarts++;
      this.start('restart after a failure').catch(() => undefined);
    }, decision.delayMs);
    this.restartTimer.unref();
  }

  private startPing(generation: number): void {
    const interval = this.hooks.settings().pingIntervalMs;
    if (interval <= 0) return;
    this.pingTimer = setInterval(() => {
      const session = this.session;
      if (!session || generation !== this.generation) return;
      session.ping(Math.min(interval, 10_000)).catch((error: Error) => {
        this.stderr.note(`ping failed: ${error.message}`);
        this.lost(generation, `ping failed: ${error.message}`);
      });
    }, interval);
    this.pingTimer.unref();
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private clearRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  private move(to: McpState, reason: string, pid: number | null = null): void {
    const from = this.state;
    if (from === to && to !== 'error') return;
    if (!moveAllowed(from, to)) throw new Error(`tool server ${this.record.id}: ${from} -> ${to} is not a legal move`);
    this.state = to;
    if (to === 'ready') this.lastError = null;
    this.hooks.onState({ server: this.record.id, from, to, reason, pid });
  }
}
