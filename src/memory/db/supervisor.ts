// The supervisor of the embedded memory database process (pg-process.ts): started on first
// use, not at gateway start (it costs ~200 MB), restarted with a slot's backoff when it dies,
// stopped after [memory].idle_timeout_s unused and at gateway shutdown. The very first start
// initialises the data directory first, in a process of its own (pg-process --init: initdb's
// memory leaves with it), and says so in its reason. Each state change is reported through
// onState (the memory.engine event). Keeps the port across restarts where it can, so a client
// that reconnects finds the same address.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { codeFile } from '../../lib/code-dir.js';
import { dataDirInitialised } from './data-dir.js';
import { type MemoryEngineEventData, type MemoryEngineState } from '../../protocol/events.js';
import { MemoryError } from '../../protocol/errors.js';
import { decideRestart, DEFAULT_RESTART_POLICY, type RestartPolicy } from '../../slots/restart-policy.js';

export const PG_PROCESS_ENTRY = codeFile('memory/db/pg-process.js');
const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
/** The reason of the first start's `starting` (the memory.engine event): most of a first use's wait. */
export const INITIALISING = 'first use: initialising the data directory';

export interface PgSupervisorOptions {
  dataDir: string;
  /** dist/memory/db/pg-process.js; the tests name the built file. */
  entry?: string;
  /** Read at each use, so a settings change applies without a restart; 0 = never idle-stopped. */
  idleTimeoutMs: () => number;
  onState?: (change: MemoryEngineEventData) => void;
  policy?: RestartPolicy;
}

export class PgSupervisor {
  state: MemoryEngineState = 'stopped';
  port: number | null = null;
  lastError: string | null = null;
  /** Bumped each time a process becomes ready: a client's connections to an earlier one are dead. */
  generation = 0;
  private child: ChildProcess | null = null;
  private starting: Promise<number> | null = null;
  /** A stop under way: a use waits for it, so two processes never open one data directory. */
  private stopping: Promise<void> | null = null;
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Uses in flight (a query, a transaction, a new pool's migrations): no idle stop under one. */
  private inUse = 0;
  private stderrTail = '';

  constructor(private readonly options: PgSupervisorOptions) {}

  get pid(): number | null {
    return this.state === 'ready' ? (this.child?.pid ?? null) : null;
  }

  /** The port of a ready process, starting it (or joining its start) first; counts as a use. */
  async acquire(): Promise<number> {
    this.touch();
    if (this.state === 'ready' && this.port !== null) return this.port;
    await this.stopping;
    if (this.state === 'ready' && this.port !== null) return this.port;
    // A use after a crash loop is a fresh try, as a slot's `load` after error is.
    if (this.state === 'error') this.crashes = [];
    this.starting ??= this.spawn().finally(() => (this.starting = null));
    const port = await this.starting;
    // The idle time counts from the end of the start (a first start runs initdb, which can
    // take longer than a short idle_timeout_s).
    this.touch();
    return port;
  }

  /**
   * `fn` as one use: the idle timer does not stop the process before it settles (a first use's
   * migrations, a long query can outlast a short idle_timeout_s), and counts from its end.
   */
  async using<T>(fn: () => Promise<T>): Promise<T> {
    this.inUse += 1;
    try {
      return await fn();
    } finally {
      this.inUse -= 1;
      if (this.inUse === 0 && this.state === 'ready') this.touch();
    }
  }

  /** Resident memory of the process from /proc, or null when it is not running. */
  async rssBytes(): Promise<number | null> {
    const pid = this.pid;
    if (pid === null) return null;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  }

  /** SIGTERM (PGlite closes cleanly), SIGKILL after a grace; no restart follows. */
  stop(reason = 'stop'): Promise<void> {
    this.stopping ??= this.terminate(reason).finally(() => (this.stopping = null));
    return this.stopping;
  }

  private async terminate(reason: string): Promise<void> {
    this.clearTimers();
    await this.starting?.catch(() => undefined);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      // Crashed and waiting for its restart, or in error: nothing runs, and nothing will.
      if (this.state !== 'stopped') this.move('stopped', reason);
      return;
    }
    this.move('stopping', reason);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const ms = this.options.idleTimeoutMs();
    // A start or a use under way: the timer is set again when it ends (acquire, using).
    this.idleTimer = ms > 0 ? setTimeout(() => void (this.starting || this.inUse > 0 ? undefined : this.stop(`idle for ${Math.round(ms / 1000)} s`)), ms) : null;
    this.idleTimer?.unref();
  }

  private async spawn(): Promise<number> {
    this.clearRestartTimer();
    const fresh = !(await dataDirInitialised(this.options.dataDir));
    this.move('starting', fresh ? INITIALISING : this.crashes.length > 0 ? 'restart after a crash' : 'first use');
    if (fresh) await this.initialise();
    return this.serve();
  }

  /** pg-process --init: initdb in the data directory, in a process that then exits; a failure is a crash like a start's. */
  private initialise(): Promise<void> {
    const child = this.start(['--init']);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
      child.once('error', (error) => (this.lastError = error.message));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.child = null;
        if (code === 0) return resolve();
        const why = `initialising the data directory: ${this.exitWhy(code, signal)}`;
        this.lastError = why;
        this.crashed(why);
        reject(new MemoryError('memory.unavailable', `the embedded memory database could not start: ${why}`, { reason: why }));
      });
    });
  }

  private start(extra: readonly string[]): ChildProcess {
    const args = [this.options.entry ?? PG_PROCESS_ENTRY, '--data', this.options.dataDir, ...extra];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.stderrTail = '';
    child.stderr!.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4000)));
    return child;
  }

  private exitWhy(code: number | null, signal: NodeJS.Signals | null): string {
    return `exited (${signal ?? `code ${code}`})${this.stderrTail ? `: ${this.stderrTail.trim().split('\n').slice(-3).join(' | ')}` : ''}`;
  }

  private serve(): Promise<number> {
    const child = this.start(['--port', String(this.port ?? 0), '--watch-stdin']);
    return new Promise<number>((resolve, reject) => {
      let pending = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        if (this.state !== 'starting') return;
        pending += chunk.toString();
        const line = pending.split('\n').find((l) => l.startsWith('{"ready":true'));
        if (!line) return;
        clearTimeout(timer);
        this.port = (JSON.parse(line) as { port: number }).port;
        this.generation += 1;
        this.move('ready', `listening on 127.0.0.1:${this.port}`);
        resolve(this.port);
      });
      child.once('error', (error) => (this.lastError = error.message));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.child = null;
        const why = this.exitWhy(code, signal);
        if (this.state === 'stopping') return this.move('stopped', 'stopped');
        const wasStarting = this.state === 'starting';
        this.lastError = why;
        this.crashed(why);
        // The old port may be taken by now: the next start takes any free one.
        if (wasStarting) this.port = null;
        if (wasStarting) reject(new MemoryError('memory.unavailable', `the embedded memory database could not start: ${why}`, { reason: why }));
      });
    });
  }

  private crashed(why: string): void {
    const now = Date.now();
    this.crashes.push(now);
    const decision = decideRestart(this.crashes, now, this.options.policy ?? DEFAULT_RESTART_POLICY);
    if (!decision.restart) return this.move('error', `crash loop: ${why}`);
    this.move('crashed', why);
    // The restart the next use would do anyway, done now so that it is ready sooner.
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.starting ??= this.spawn().finally(() => (this.starting = null));
      this.starting.catch(() => undefined);
    }, decision.delayMs);
    this.restartTimer.unref();
  }

  private move(to: MemoryEngineState, reason: string): void {
    const from = this.state;
    this.state = to;
    this.options.onState?.({ from, to, reason, pid: this.child?.pid ?? null });
  }

  private clearRestartTimer(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  private clearTimers(): void {
    this.clearRestartTimer();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
