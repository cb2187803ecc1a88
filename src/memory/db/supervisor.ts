// The supervisor of the embedded memory database process (pg-process.ts): started on first
// use, not at gateway start (it costs ~200 MB), restarted with a slot's backoff when it dies,
// stopped after [memory].idle_timeout_s unused and at gateway shutdown. The very first start
// initialises the data directory first, in a process of its own (pg-process --init: initdb's
// memory leaves with it), and says so in its reason. Each state change is reported through
// onState (the memory.engine event). Keeps the port across restarts where it can, so a client
// that reconnects finds the same address. The shape is the shared one (lib/supervision): the
// state is private and moves through PG_MOVES, starts and stops run in one queue (so a use
// waits for a stop under way: two processes never open one data directory), and a use while
// a start is queued or running joins it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { codeFile } from '../../lib/code-dir.js';
import { Lifecycle, type TransitionTable } from '../../lib/supervision/lifecycle.js';
import { LogRing } from '../../lib/supervision/log-ring.js';
import { dataDirInitialised } from './data-dir.js';
import { READY_PREFIX } from './ready-line.js';
import { type MemoryEngineEventData, type MemoryEngineState } from '../../protocol/events.js';
import { MemoryError } from '../../protocol/errors.js';
import { decideRestart, DEFAULT_RESTART_POLICY, type RestartPolicy } from '../../lib/supervision/restart-policy.js';

export const PG_PROCESS_ENTRY = codeFile('memory/db/pg-process.js');
const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;
/** The reason of the first start's `starting` (the memory.engine event): most of a first use's wait. */
export const INITIALISING = 'first use: initialising the data directory';

/** The moves of the database process; any other throws. */
export const PG_MOVES: TransitionTable<MemoryEngineState> = {
  stopped: ['starting'],
  starting: ['ready', 'crashed', 'error'],
  ready: ['stopping', 'crashed', 'error'],
  stopping: ['stopped'],
  // crashed: its restart is due (or a use comes first); error: a crash loop, until a use tries again.
  crashed: ['starting', 'stopped'],
  error: ['starting', 'stopped'],
};

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
  private readonly life = new Lifecycle<MemoryEngineState>({ subject: 'the memory database', table: PG_MOVES, initial: 'stopped' });
  private listening: number | null = null;
  private error: string | null = null;
  private readyCount = 0;
  private child: ChildProcess | null = null;
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  /** The running process's last stderr lines, for the reason of its exit. */
  private readonly stderr = new LogRing({ capacity: 20 });
  /** Uses in flight (a query, a transaction, a new pool's migrations): no idle stop under one. */
  private inUse = 0;

  constructor(private readonly options: PgSupervisorOptions) {}

  get state(): MemoryEngineState { return this.life.state; }
  /** Where a ready process listens; kept across restarts where it can be. */
  get port(): number | null { return this.listening; }
  get lastError(): string | null { return this.error; }
  /** Bumped each time a process becomes ready: a client's connections to an earlier one are dead. */
  get generation(): number { return this.readyCount; }

  get pid(): number | null {
    return this.state === 'ready' ? (this.child?.pid ?? null) : null;
  }

  /** The port of a ready process, starting it (or joining its start) first; counts as a use. */
  async acquire(): Promise<number> {
    this.touch();
    if (this.state === 'ready' && this.listening !== null) return this.listening;
    const port = await this.startInTurn(true);
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

  /** SIGTERM (PGlite closes cleanly), SIGKILL after a grace; no restart follows. A start under way ends first. */
  stop(reason = 'stop'): Promise<void> {
    this.clearTimers();
    return this.life.joined('stop', () => this.terminate(reason));
  }

  /**
   * In the queue: the port of a ready process, starting one if none is. `fresh` (a use): after a
   * crash loop it is a fresh try, as a slot's `load` after error is; the backoff's restart is not.
   */
  private startInTurn(fresh: boolean): Promise<number> {
    return this.life.joined('start', async () => {
      if (this.state === 'ready' && this.listening !== null) return this.listening;
      if (fresh && this.state === 'error') this.crashes = [];
      const run = this.life.beginRun();
      try {
        return await this.spawn();
      } finally {
        this.life.endRun(run);
      }
    });
  }

  private async terminate(reason: string): Promise<void> {
    this.clearTimers();
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
    this.idleTimer = ms > 0 ? setTimeout(() => void (this.life.running || this.inUse > 0 ? undefined : this.stop(`idle for ${Math.round(ms / 1000)} s`)), ms) : null;
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
      child.once('error', (error) => (this.error = error.message));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.child = null;
        if (code === 0) return resolve();
        const why = `initialising the data directory: ${this.exitWhy(code, signal)}`;
        this.error = why;
        this.crashed(why);
        reject(new MemoryError('memory.unavailable', `the embedded memory database could not start: ${why}`, { reason: why }));
      });
    });
  }

  private start(extra: readonly string[]): ChildProcess {
    const args = [this.options.entry ?? PG_PROCESS_ENTRY, '--data', this.options.dataDir, ...extra];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.stderr.clear();
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.write(chunk));
    return child;
  }

  private exitWhy(code: number | null, signal: NodeJS.Signals | null): string {
    const last = this.stderr.recent().filter((line) => line.trim() !== '').slice(-3);
    return `exited (${signal ?? `code ${code}`})${last.length > 0 ? `: ${last.join(' | ')}` : ''}`;
  }

  private serve(): Promise<number> {
    const child = this.start(['--port', String(this.listening ?? 0), '--watch-stdin']);
    return new Promise<number>((resolve, reject) => {
      let pending = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        if (this.state !== 'starting') return;
        pending += chunk.toString();
        const line = pending.split('\n').find((l) => l.startsWith(READY_PREFIX));
        if (!line) return;
        clearTimeout(timer);
        const port = (JSON.parse(line) as { port: number }).port;
        this.listening = port;
        this.readyCount += 1;
        this.move('ready', `listening on 127.0.0.1:${port}`);
        resolve(port);
      });
      child.once('error', (error) => (this.error = error.message));
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        this.child = null;
        const why = this.exitWhy(code, signal);
        if (this.state === 'stopping') return this.move('stopped', 'stopped');
        const wasStarting = this.state === 'starting';
        this.error = why;
        this.crashed(why);
        // The old port may be taken by now: the next start takes any free one.
        if (wasStarting) this.listening = null;
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
      this.startInTurn(false).catch(() => undefined);
    }, decision.delayMs);
    this.restartTimer.unref();
  }

  /** Every move goes through PG_MOVES (an illegal one throws) and is the memory.engine event. */
  private move(to: MemoryEngineState, reason: string): void {
    const from = this.life.move(to);
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
