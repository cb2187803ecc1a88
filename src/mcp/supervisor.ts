// The supervisor of one installed tool server: its state machine (state-machine.ts), start and
// graceful stop, health by MCP ping, restart with backoff when it exits, and the crash-loop cap
// (restart_max exits within restart_window_s → error, with the stderr tail in last_error).
// A remote server is connected and pinged the same way; when it stops answering it is error.
// The shape is the shared one (lib/supervision): the state is private and moves through
// MCP_MOVES, starts, stops and the handling of a lost connection run in the server's queue,
// a start asked for during one joins it, and a stop interrupts a start in progress. Each
// connection is a run: its signal aborts when it is stopped or lost, so news from an
// earlier connection (an exit, a failed ping) is recognised as old.
import type { McpServerRecord, McpState } from '../protocol/mcp.js';
import { Lifecycle } from '../lib/supervision/lifecycle.js';
import { LogRing } from '../lib/supervision/log-ring.js';
import { decideRestart } from '../lib/supervision/restart-policy.js';
import type { ClientSession } from './client-session.js';
import type { TargetGuard } from './url-guard.js';
import { MCP_MOVES } from './state-machine.js';

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
  private readonly life: Lifecycle<McpState>;
  private restartCount = 0;
  private error: string | null = null;
  /** Set when restart_max failures fell within restart_window_s: no more automatic restarts. */
  private looping = false;
  /** The server's stderr and svc's notes about it (GET /api/mcp/<id>/logs). */
  private readonly stderr = new LogRing({ capacity: 200 });
  private live: ClientSession | null = null;
  private crashes: number[] = [];
  private pingTimer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(private current: McpServerRecord, private readonly hooks: SupervisorHooks) {
    this.life = new Lifecycle({ subject: `tool server ${current.id}`, table: MCP_MOVES, initial: current.enabled ? 'stopped' : 'disabled' });
  }

  get state(): McpState { return this.life.state; }
  get record(): McpServerRecord { return this.current; }
  /** Restarts taken after failures. */
  get restarts(): number { return this.restartCount; }
  get lastError(): string | null { return this.error; }
  get crashLoop(): boolean { return this.looping; }
  /** The connection of a running server (its tools, its version), or null. */
  get session(): ClientSession | null { return this.live; }

  get pid(): number | null {
    return this.state === 'ready' || this.state === 'starting' ? (this.live?.pid ?? null) : null;
  }

  /** The record changed on disk (its id stays): the next start uses it; the caller restarts a running server. */
  reconfigure(record: McpServerRecord): void {
    if (record.id !== this.current.id) throw new Error(`tool server ${this.current.id}: a record of ${record.id} is not its own`);
    this.current = record;
  }

  /** The last `n` lines of stderr and of svc's notes. */
  logs(n: number): string[] {
    return this.stderr.recent(n);
  }

  /** Start (or join a start under way); resolves when ready, rejects when the start failed. */
  start(reason = 'start'): Promise<void> {
    if (this.state === 'ready') return Promise.resolve();
    return this.life.joined('start', () => this.spawn(reason));
  }

  /** Stop gracefully (close the transport: stdin, SIGTERM, SIGKILL); `disable` leaves it disabled. */
  stop(reason = 'stop', disable = false): Promise<void> {
    this.clearRestart();
    this.life.interrupt(); // a start in progress gives up at once, and a connection's news is old
    return this.life.serially(() => this.close(reason, disable));
  }

  private async close(reason: string, disable: boolean): Promise<void> {
    this.clearRestart();
    this.stopPing();
    const session = this.live;
    this.live = null;
    if (this.state === 'ready' || this.state === 'starting' || this.state === 'error') this.move('stopping', reason, session?.pid ?? null);
    await session?.close();
    if (this.state === 'stopping') this.move(disable ? 'disabled' : 'stopped', reason);
    else if (disable && this.state === 'stopped') this.move('disabled', reason);
    this.forgetCrashes();
  }

  private forgetCrashes(): void {
    this.crashes = [];
    this.looping = false;
  }

  /** In the queue: connect, or fail (and schedule the restart). A stop meanwhile makes it resolve without a connection. */
  private async spawn(reason: string): Promise<void> {
    if (this.state === 'ready') return;
    // A start asked for (not the backoff's) begins a fresh count.
    if (this.looping) this.forgetCrashes();
    this.clearRestart();
    if (this.state === 'disabled') this.move('stopped', 'enabled');
    const signal = this.life.beginRun();
    this.move('starting', reason);
    let session: ClientSession | null = null;
    try {
      const env = await this.hooks.environment(this.current);
      if (signal.aborted) return;
      // The SDK loads with the first server started, not with the gateway (docs/performance.md).
      const { ClientSession } = await import('./client-session.js');
      if (signal.aborted) return;
      session = new ClientSession(this.current, env, this.stderr, {
        onClosed: () => this.lost(signal, 'the server exited'),
        onToolsChanged: () => this.hooks.onToolsChanged(this.current.id),
      }, this.hooks.guard(this.current));
      this.live = session;
      this.stderr.note(`starting (${reason})`);
      await Promise.race([session.open(this.hooks.settings().startTimeoutMs), abortion(signal)]);
      this.move('ready', 'connected', session.pid);
      this.startPing(signal);
    } catch (error) {
      if (signal.aborted) return void session?.close(); // the stop queued behind closes what is left
      this.life.endRun(signal);
      await session?.close();
      this.live = null;
      this.failed(`${(error as Error).message ?? String(error)}`);
      throw new Error(this.error ?? 'start failed', { cause: error });
    }
  }

  /** The connection ended on its own: a crash for stdio, an outage for a remote server. */
  private lost(signal: AbortSignal, why: string): void {
    if (signal.aborted) return;
    void this.life.serially(async () => {
      if (signal.aborted || this.state !== 'ready') return;
      this.life.interrupt();
      this.life.endRun(signal);
      this.stopPing();
      const session = this.live;
      this.live = null;
      void session?.close();
      this.failed(why);
    });
  }

  /** After a failed start or a crash: restart with backoff, or error once it is a crash loop. */
  private failed(why: string): void {
    const tail = this.stderr.tail(20);
    this.error = tail ? `${why}\n${tail}` : why;
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
      this.looping = true;
      this.move('error', `crash loop: ${settings.restartMax} failures within ${settings.restartWindowMs / 1000} s`);
      return;
    }
    this.move('error', `${why}; restarting in ${decision.delayMs} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.restartCount++;
      this.start('restart after a failure').catch(() => undefined);
    }, decision.delayMs);
    this.restartTimer.unref();
  }

  private startPing(signal: AbortSignal): void {
    const interval = this.hooks.settings().pingIntervalMs;
    if (interval <= 0) return;
    this.pingTimer = setInterval(() => {
      const session = this.live;
      if (!session || signal.aborted) return;
      session.ping(Math.min(interval, 10_000)).catch((error: Error) => {
        this.stderr.note(`ping failed: ${error.message}`);
        this.lost(signal, `ping failed: ${error.message}`);
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

  /** Every move goes through MCP_MOVES (an illegal one throws) and is reported. */
  private move(to: McpState, reason: string, pid: number | null = null): void {
    const from = this.life.move(to);
    if (to === 'ready') this.error = null;
    this.hooks.onState({ server: this.current.id, from, to, reason, pid });
  }
}

/** A promise that rejects when `signal` aborts (a stop during a start). */
function abortion(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(new Error('stopped'));
    else signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
  });
}
