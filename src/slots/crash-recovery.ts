// A slot's failures and what follows them. A failure (a start that failed, a crash, a health
// watch that gave up) is recorded for the view, with the engine's last log lines, and
// counted; the restart comes after a backoff that doubles per recent failure, or never on a
// crash loop (lib/supervision/restart-policy.ts decides). Each restart answers one failure: a start, a stop
// or a newer failure that came while it waited takes over, so no start skips its backoff.
// The slot's move to error is the runtime's own transition, handed in as enterError: the
// runtime stays the state's one writer. The clock and the timer are injectable, so the
// backoff is tested without waiting.
import { statfs } from 'node:fs/promises';
import { SlotError, type SvcError } from '../protocol/errors.js';
import type { SlotFailurePayload } from '../protocol/slots.js';
import type { UnhealthyReport } from './health-watch.js';
import type { EngineLog } from './engine-log.js';
import { describeExit, type EngineExit, type EngineProcess } from './engine-process.js';
import { decideRestart, type RestartPolicy } from '../lib/supervision/restart-policy.js';
import type { SlotState } from './state-machine.js';

/** The last failure of a slot, as the API shows it. */
export type SlotFailure = SlotFailurePayload;

/** Runs `task` after `delayMs`; returns what cancels it. */
export type Schedule = (task: () => void, delayMs: number) => () => void;

export interface CrashRecoveryOptions {
  slot: string;
  policy: RestartPolicy;
  /** Where the engine's log lives: a full filesystem there is named in the failure. */
  stateRoot: string;
  /** The engine's log: its last lines go into the failure (stderr_tail). */
  log: Pick<EngineLog, 'pump' | 'recent'>;
  engine: Pick<EngineProcess, 'pid' | 'kill'>;
  /** The slot's state now. */
  state: () => SlotState;
  /** The runtime's transition to error, carrying the failure. */
  enterError: (reason: string, failure: SlotFailure) => void;
  /** The failure shown changed without a transition (a refusal, a crash loop): write state.json. */
  changed: () => void;
  /** A backoff ended: restart the slot if takeRestart(failure) still says so. */
  onRestartDue: (failure: number) => void;
  now?: () => number;
  schedule?: Schedule;
}

/** How a start fails once the slot is starting: the engine did not load, could not run, or a check before it failed. */
export type StartFailureCode = 'slot.load_failed' | 'slot.spawn_failed' | 'slot.rpc_worker_unreachable';

/** An engine's failure: its code, the reason its transition to error gives, how it exited. */
interface EngineFailure {
  code: string;
  message: string;
  exit?: EngineExit;
}

/** The real timer; unref'd, so a pending restart never holds the process open. */
const realTimer: Schedule = (task, delayMs) => {
  const timer = setTimeout(task, delayMs);
  timer.unref();
  return () => clearTimeout(timer);
};

export class CrashRecovery {
  private last: SlotFailure | null = null;
  private crashTimes: number[] = [];
  /** Failures recorded so far; a restart answers one of them. */
  private failures = 0;
  private restartCount = 0;
  private cancelPending: (() => void) | null = null;
  private detached = false;
  private readonly now: () => number;
  private readonly schedule: Schedule;

  constructor(private readonly options: CrashRecoveryOptions) {
    this.now = options.now ?? Date.now;
    this.schedule = options.schedule ?? realTimer;
  }

  get lastFailure(): SlotFailure | null {
    return this.last;
  }

  /** Restarts taken after failures, for the view. */
  get restarts(): number {
    return this.restartCount;
  }

  /**
   * A start failed: error, and (with `retry`) a restart after the backoff; the SlotError the
   * start throws, with `details` (e.g. the RPC worker that was unreachable) beside the failure.
   */
  async failedStart(code: StartFailureCode, message: string, exit?: EngineExit, retry = true, details: Record<string, unknown> = {}): Promise<SlotError> {
    const failure = (await this.fail({ code, message, exit }, retry))!;
    return new SlotError(code, `slot ${this.options.slot}: ${failure.message}`, { ...details, slot: this.options.slot, ...failure });
  }

  /** The engine exited before it was ready. One that could not be executed is a host or configuration problem: no automatic retry. */
  exitedWhileLoading(exit: EngineExit): Promise<SlotError> {
    if (exit.error) return this.failedStart('slot.spawn_failed', `engine ${describeExit(exit)}`, exit, false);
    return this.failedStart('slot.load_failed', `engine exited while loading (${describeExit(exit)})`, exit);
  }

  /** The ready engine `pid` died: error, then a restart after the backoff. */
  async crashed(exit: EngineExit, pid: number | null, message = `engine exited (${describeExit(exit)})`): Promise<void> {
    await this.fail({ code: 'slot.load_failed', message, exit }, true, () => this.stillServing(pid));
  }

  /**
   * The health watch gave up on a ready engine whose process lives: error (slot.unhealthy),
   * kill its process group (a hung engine may ignore SIGTERM), then restart it with the crash
   * backoff; it counts toward the crash loop.
   */
  async unhealthy(report: UnhealthyReport): Promise<void> {
    const pid = this.options.engine.pid;
    const message = `engine stopped answering: ${report.failures} health probe(s) in a row failed (last: ${report.last}; [slots].health_failures)`;
    if (!(await this.fail({ code: 'slot.unhealthy', message }, false, () => this.stillServing(pid)))) return;
    await this.options.engine.kill();
    // Unless a stop came while the engine was being killed.
    if (this.options.state() === 'error' && !this.detached) this.scheduleRestart();
  }

  /** A start refused before any engine ran: shown, but no failure of the engine. */
  refused(error: SvcError): void {
    this.last = { code: error.code, message: error.message, at: new Date(this.now()).toISOString() };
    this.options.changed();
  }

  /** The engine turned ready: no failure to show any more. */
  clear(): void {
    this.last = null;
  }

  /**
   * When a due restart's turn in the slot's queue comes: true (and counted) when the slot is
   * still in error from that same failure.
   */
  takeRestart(failure: number): boolean {
    if (this.options.state() !== 'error' || this.failures !== failure) return false;
    this.restartCount++;
    return true;
  }

  /** A user's load after a crash loop starts over. */
  reset(): void {
    this.crashTimes = [];
  }

  /** A start or a stop makes a pending restart moot. */
  cancel(): void {
    this.cancelPending?.();
    this.cancelPending = null;
  }

  /** The gateway let go of the engine: no more failures of it, no restarts. */
  detach(): void {
    this.cancel();
    this.detached = true;
  }

  /**
   * Read the engine's last lines, record the failure (counted toward the crash loop), move
   * the slot to error and, with `retry`, schedule the restart. `current` is asked once the log
   * is read: false when a stop or a new engine came meanwhile, which makes this old news,
   * recorded nowhere (null).
   */
  private async fail(failure: EngineFailure, retry: boolean, current: () => boolean = () => true): Promise<SlotFailure | null> {
    const { log, stateRoot } = this.options;
    await log.pump();
    const message = `${failure.message}${await fullDiskHint(stateRoot)}`;
    if (!current()) return null;
    const now = this.now();
    this.crashTimes.push(now);
    this.failures++;
    const { code, exit } = failure;
    const recorded = { code, message, at: new Date(now).toISOString(), ...(exit && { exit_code: exit.code, signal: exit.signal }), stderr_tail: log.recent(20).join('\n') };
    this.last = recorded;
    this.options.enterError(failure.message, recorded);
    if (retry) this.scheduleRestart();
    return recorded;
  }

  /** Still ready on engine `pid`, and ours: a stop or a new engine since makes news of it old. */
  private stillServing(pid: number | null): boolean {
    return this.options.state() === 'ready' && this.options.engine.pid === pid && !this.detached;
  }

  /** After a failure: schedule the restart that answers it, or, on a crash loop, say so in the failure instead. */
  private scheduleRestart(): void {
    const { policy, slot } = this.options;
    const decision = decideRestart(this.crashTimes, this.now(), policy);
    if (!decision.restart) {
      const message = `${this.last?.message ?? 'crashed'}; crashed ${policy.crashLoopCount} times in ${policy.crashLoopWindowMs / 1000} s, not restarting (svc slot load ${slot} to try again)`;
      this.last = { ...this.last!, code: 'slot.crash_loop', message };
      this.options.changed();
      return;
    }
    this.cancel();
    const failure = this.failures;
    const cancel = this.schedule(() => {
      if (this.cancelPending === cancel) this.cancelPending = null;
      this.options.onRestartDue(failure);
    }, decision.delayMs);
    this.cancelPending = cancel;
  }
}

/**
 * An engine whose log sits on a full filesystem dies or stalls with nothing in its stderr
 * tail; say why, so the user does not chase the engine. Empty when there is room.
 */
async function fullDiskHint(stateRoot: string): Promise<string> {
  const fs = await statfs(stateRoot).catch(() => undefined);
  return fs && fs.bavail * fs.bsize < 1024 * 1024 ? ` (the filesystem of ${stateRoot} is full, so the engine cannot write its log: free some space)` : '';
}
