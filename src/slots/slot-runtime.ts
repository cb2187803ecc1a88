// One slot's runtime: its state (one writer: this object), its engine process, its log and
// its in-flight count. Start and stop run through a per-slot queue, so two callers never
// interleave a check-then-act; callers use the supervisor's ensureReady.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { SerialQueue } from '../lib/serial-queue.js';
import { HEALTH_TIMEOUT_MS } from '../engines/llama-server/health.js';
import type { EngineAdapter, EngineRuntimeInfo, LaunchSpec } from '../engines/types.js';
import { SlotError, type SvcError } from '../protocol/errors.js';
import type { SlotFailurePayload } from '../protocol/slots.js';
import { EngineLog } from './engine-log.js';
import { LogWaker } from './log-waker.js';
import { HealthWatch, type HealthWatchSettings, type UnhealthyReport } from './health-watch.js';
import { isRunning, residentMemoryMb, signalGroup, stopProcessGroup, waitForExit } from '../lib/process.js';
import { spawnEngine } from './engine-spawn.js';
import { decideRestart, type RestartPolicy } from './restart-policy.js';
import { slotStateDir } from '../config/slot-state-file.js';
import { SlotStateWriter } from './state-file.js';
import { assertTransition, isLive, type SlotState } from './state-machine.js';

/** The last failure of a slot, as the API shows it. */
export type SlotFailure = SlotFailurePayload;

export interface Transition {
  slot: string;
  from: SlotState;
  to: SlotState;
  reason: string;
  details?: Record<string, unknown>;
}

/** The first health poll of a start comes this soon; the delay then doubles up to the interval. */
export const FIRST_HEALTH_POLL_MS = 10;

/** How long to wait for a SIGKILLed engine to be gone before restarting it. */
const KILL_WAIT_MS = 5_000;

/**
 * How long to wait before health poll number `poll` (0-based): 10, 20, 40, ... ms, capped at
 * `intervalMs`. A fast engine is noticed within a few ms of turning ready instead of up to
 * a whole interval later (the bench's cold-slot figure, docs/performance.md); a slow one is
 * polled at the interval as before, after a handful of early polls.
 */
export function healthPollDelay(poll: number, intervalMs: number): number {
  return Math.min(intervalMs, FIRST_HEALTH_POLL_MS * 2 ** Math.min(poll, 20));
}

export interface RuntimeOptions {
  stateRoot: string;
  policy: RestartPolicy;
  stopGraceMs: number;
  healthIntervalMs: number;
  onTransition: (t: Transition) => void;
  /** Called when a crashed slot's backoff ends, with the failure it answers (see takeRestart). */
  onRestartDue: (slot: string, failure: number) => void;
  /** [slots].health_interval_s and health_failures, read at each probe of a ready engine. */
  watch: () => HealthWatchSettings;
}

/** What a start needs, prepared by the supervisor (model, profile, argv). */
export interface StartPlan {
  spec: LaunchSpec;
  engine: EngineAdapter;
  modelId: string;
  loadTimeoutMs: number;
}

type Exit = { code: number | null; signal: NodeJS.Signals | null; error?: Error };

export class SlotRuntime {
  state: SlotState = 'stopped';
  pid: number | null = null;
  baseUrl: string | null = null;
  modelId: string | null = null;
  command: string[] | null = null;
  startedAt: number | null = null;
  lastUsedAt = 0;
  inFlight = 0;
  lastError: SlotFailure | null = null;
  restarts = 0;
  /** Failures recorded so far (starts and crashes); a restart answers one of them. */
  private failures = 0;
  /** What the running engine reported it computes on (backend, GPU layers); null until known. */
  runtimeInfo: EngineRuntimeInfo | null = null;
  /** Resident memory of the engine at the last tick's sample (MiB); null when unknown. */
  memoryMb: number | null = null;
  readonly log: EngineLog;
  readonly queue = new SerialQueue();
  private readonly stateFile: SlotStateWriter;
  private crashTimes: number[] = [];
  private child: ChildProcess | null = null;
  private exited: Promise<Exit> | null = null;
  private stopping = false;
  private detached = false;
  private startAbort: AbortController | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  /** The adapter of the engine running now, for the health watch. */
  private engine: EngineAdapter | null = null;
  private readonly watch: HealthWatch;

  constructor(readonly name: string, public port: number, private readonly options: RuntimeOptions) {
    // No disk work here: a view of a slot created while requests flow builds its runtime.
    const dir = slotStateDir(options.stateRoot, name);
    this.log = new EngineLog(join(dir, 'engine.log'));
    this.watch = new HealthWatch({
      settings: options.watch,
      probe: () => (this.engine && this.baseUrl ? this.engine.health(this.baseUrl, AbortSignal.timeout(HEALTH_TIMEOUT_MS)) : Promise.resolve('ready')),
      onUnhealthy: (report) => void this.unhealthy(report),
    });
    this.stateFile = new SlotStateWriter(options.stateRoot, (error) => process.stderr.write(`svc: cannot write state of slot ${name}: ${error.message}\n`));
  }

  /** Start the engine and wait until it is healthy; throws a SlotError on failure. */
  async start(plan: StartPlan): Promise<void> {
    if (this.state === 'ready') return;
    this.cancelRestart();
    const abort = (this.startAbort = new AbortController());
    this.transition('starting', 'start', { model: plan.modelId });
    this.engine = plan.engine;
    try {
      this.spawn(plan);
    } catch (error) {
      // Nothing ran: the log could not be opened (a read-only or full state directory) or
      // the spawn itself failed. The slot must not stay "starting"; a host problem, no retry.
      throw await this.failStart('slot.spawn_failed', `cannot start the engine: ${(error as Error).message}`, undefined, false);
    }
    // The engine's record (pid, port, command) goes to state.json while the engine loads.
    const recorded = this.stateFile.flush();
    try {
      await this.waitHealthy(plan, abort.signal);
      // Nobody is told the slot is ready before state.json holds that record: a gateway
      // killed the moment after must leave the next one an engine to re-adopt (a record that
      // says starting is re-adopted as one that says ready is: supervisor.adoptOrRestart),
      // not a stray process on the slot's port. Written while the engine loaded, it is
      // normally on disk by now; the write that says ready follows without holding anyone.
      await recorded;
    } catch (error) {
      if (abort.signal.aborted) return; // a stop is queued behind us and takes over
      throw error;
    } finally {
      this.startAbort = null;
    }
  }

  /** Stop the engine: SIGTERM, grace, SIGKILL to its group. */
  async stop(reason: string): Promise<void> {
    this.cancelRestart();
    if (this.state === 'stopped') return;
    if (this.state === 'error') return this.transition('stopped', reason);
    this.transition('stopping', reason);
    await this.terminate();
    this.transition('stopped', reason);
  }

  /** Abort a start in progress so a queued stop does not wait out the load deadline. */
  interruptStart(): void {
    this.startAbort?.abort();
  }

  /** Take over an engine a previous gateway left running (state.json); true when adopted. */
  adopt(pid: number, baseUrl: string, modelId: string | null, command: string[] | null, engine: EngineAdapter): void {
    this.engine = engine;
    this.pid = pid;
    this.baseUrl = baseUrl;
    this.modelId = modelId;
    this.command = command;
    this.startedAt = Date.now();
    this.lastUsedAt = Date.now();
    this.transition('ready', 'adopted', { pid });
  }

  /** For adopted engines (no exit event): notice that the process died. */
  async checkAdoptedAlive(): Promise<void> {
    const pid = this.pid;
    if (this.detached || this.state !== 'ready' || this.child || pid === null) return;
    if (!(await isRunning(pid))) await this.crashed({ code: null, signal: null }, 'the adopted engine process is gone', pid);
  }

  /** Sample the engine's resident memory (the tick does, so views and eviction never read /proc themselves). */
  async sampleMemory(): Promise<void> {
    const pid = this.pid;
    const memory = pid !== null && isLive(this.state) ? await residentMemoryMb(pid) : undefined;
    if (this.pid === pid) this.memoryMb = memory ?? null;
  }

  acquire(): () => void {
    this.inFlight++;
    this.lastUsedAt = Date.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.lastUsedAt = Date.now();
    };
  }

  dispose(): void {
    this.cancelRestart();
    this.watch.stop();
  }

  /** Stop watching the engine (it keeps running): no exit handling, no restarts. */
  detach(): void {
    this.cancelRestart();
    this.watch.stop();
    this.detached = true;
  }

  private spawn(plan: StartPlan): void {
    const { spec } = plan;
    mkdirSync(slotStateDir(this.options.stateRoot, this.name), { recursive: true }); // spawning is synchronous anyway
    const spawned = spawnEngine(spec.command, spec.args, spec.env, this.log.openForChild());
    this.child = spawned.child;
    this.pid = spawned.pid > 0 ? spawned.pid : null;
    this.baseUrl = spec.baseUrl;
    this.modelId = plan.modelId;
    this.command = [spec.command, ...spec.args];
    this.memoryMb = null;
    this.runtimeInfo = null;
    this.startedAt = Date.now();
    this.lastUsedAt = Date.now();
    const child = spawned.child;
    this.exited = new Promise<Exit>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    void this.exited.then((exit) => this.onExit(child, exit));
    this.persist();
  }

  private async waitHealthy(plan: StartPlan, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + plan.loadTimeoutMs;
    const exited = this.exited!;
    const waker = new LogWaker(this.log.path);
    try {
      await this.pollHealth(plan, signal, deadline, exited, waker);
    } finally {
      waker.close();
    }
  }

  private async pollHealth(plan: StartPlan, signal: AbortSignal, deadline: number, exited: Promise<Exit>, waker: LogWaker): Promise<void> {
    for (let poll = 0; Date.now() < deadline; poll++) {
      if (signal.aborted) return;
      const exit = await Promise.race([exited, waker.nap(healthPollDelay(poll, this.options.healthIntervalMs)).then(() => undefined)]);
      // A binary that cannot be executed is a host or configuration problem: no automatic retry.
      if (exit?.error) throw await this.failStart('slot.spawn_failed', `engine ${describeExit(exit)}`, exit, false);
      if (exit) throw await this.failStart('slot.load_failed', `engine exited while loading (${describeExit(exit)})`, exit);
      const health = await plan.engine.health(plan.spec.baseUrl, AbortSignal.timeout(HEALTH_TIMEOUT_MS)).catch(() => 'down' as const);
      if (signal.aborted) return;
      if (health === 'loading' && this.state === 'starting') this.transition('warming', 'engine answering, model loading');
      if (health === 'ready') return this.turnReady(plan, exited, signal);
    }
    await this.terminate();
    throw await this.failStart('slot.load_failed', `engine did not become healthy within ${Math.round(plan.loadTimeoutMs / 1000)} s ([slot].load_timeout_s)`);
  }

  /** Healthy: learn what the engine really runs on (its view shows it from the start), then ready. */
  private async turnReady(plan: StartPlan, exited: Promise<Exit>, signal: AbortSignal): Promise<void> {
    const exit = await Promise.race([exited, this.learnRuntime(plan.engine, plan.spec.baseUrl, plan.spec.args).then(() => undefined)]);
    if (signal.aborted) return;
    if (exit) throw await this.failStart('slot.load_failed', `engine exited while loading (${describeExit(exit)})`, exit);
    const info = this.runtimeInfo ? { backend: this.runtimeInfo.backend, gpu_layers: this.runtimeInfo.gpuLayers } : {};
    this.transition('ready', 'healthy', { pid: this.pid, startup_ms: Date.now() - (this.startedAt ?? Date.now()), ...info });
  }

  /** Ask the engine's adapter what it runs on (bounded; unknown on any failure). */
  async learnRuntime(engine: EngineAdapter, baseUrl: string, args: readonly string[]): Promise<void> {
    if (!engine.runtimeInfo) return;
    await this.log.pump();
    const context = { baseUrl, args, logLines: this.log.currentEngineLines(), signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) };
    this.runtimeInfo = await engine.runtimeInfo(context).catch(() => null);
  }

  private async failStart(code: 'slot.load_failed' | 'slot.spawn_failed', message: string, exit?: Exit, retry = true): Promise<SlotError> {
    const failure = this.recordFailure(code, await this.withDiskHint(message), exit);
    const error = new SlotError(code, `slot ${this.name}: ${failure.message}`, { slot: this.name, ...failure });
    this.transition('error', message, failure as unknown as Record<string, unknown>);
    if (retry) this.scheduleRestart();
    return error;
  }

  /**
   * A start refused before any engine ran (no binary, no model, a bad profile, the port taken,
   * no capacity): the state does not move, but the view says why the slot is not running.
   */
  refused(error: SvcError): void {
    this.lastError = { code: error.code, message: error.message, at: new Date().toISOString() };
    this.persist();
  }

  private onExit(child: ChildProcess, exit: Exit): void {
    if (child !== this.child || this.detached) return; // an older engine, or no longer ours
    this.child = null;
    if (this.stopping || this.startAbort || this.state === 'stopped' || this.state === 'error') return;
    if (this.state === 'ready') void this.crashed(exit, `engine exited (${describeExit(exit)})`, this.pid);
    // starting/warming: waitHealthy sees the exit and fails the start itself.
  }

  /** A ready engine (pid) died: error, then a restart after the backoff. */
  private async crashed(exit: Exit, message: string, pid: number | null): Promise<void> {
    const detailed = await this.withDiskHint(message);
    // A stop, or a new engine, may have come while the log was read: then this is old news.
    if (this.state !== 'ready' || this.pid !== pid || this.detached) return;
    const failure = this.recordFailure('slot.load_failed', detailed, exit);
    this.transition('error', message, failure as unknown as Record<string, unknown>);
    this.scheduleRestart();
  }

  /**
   * The health watch gave up on a ready engine whose process lives: error (slot.unhealthy),
   * kill its process group (a hung engine may ignore SIGTERM), then restart it with the crash
   * backoff; it counts toward the crash loop.
   */
  private async unhealthy(report: UnhealthyReport): Promise<void> {
    const pid = this.pid;
    const message = `engine stopped answering: ${report.failures} health probe(s) in a row failed (last: ${report.last}; [slots].health_failures)`;
    const detailed = await this.withDiskHint(message);
    if (this.state !== 'ready' || this.pid !== pid || this.detached) return;
    const failure = this.recordFailure('slot.unhealthy', detailed);
    this.transition('error', message, failure as unknown as Record<string, unknown>);
    if (pid !== null) {
      signalGroup(pid, 'SIGKILL');
      await waitForExit(pid, KILL_WAIT_MS, this.exited ?? undefined);
    }
    // Unless a stop came while the engine was being killed (the compiler cannot see it change).
    if ((this.state as SlotState) === 'error' && !this.detached) this.scheduleRestart();
  }

  /** Read the engine's last lines into the ring (for the stderr tail) and add a full-disk hint. */
  private async withDiskHint(message: string): Promise<string> {
    await this.log.pump();
    return `${message}${await fullDiskHint(this.options.stateRoot)}`;
  }

  /** Call after withDiskHint, so the stderr tail holds the engine's last lines. */
  private recordFailure(code: string, message: string, exit?: Exit): SlotFailure {
    this.crashTimes.push(Date.now());
    this.failures++;
    this.lastError = {
      code,
      message,
      at: new Date().toISOString(),
      ...(exit && { exit_code: exit.code, signal: exit.signal }),
      stderr_tail: this.log.recent(20).join('\n'),
    };
    return this.lastError;
  }

  private scheduleRestart(): void {
    const decision = decideRestart(this.crashTimes, Date.now(), this.options.policy);
    if (!decision.restart) {
      this.lastError = { ...this.lastError!, code: 'slot.crash_loop', message: `${this.lastError?.message ?? 'crashed'}; crashed ${this.options.policy.crashLoopCount} times in ${this.options.policy.crashLoopWindowMs / 1000} s, not restarting (svc slot load ${this.name} to try again)` };
      this.persist();
      return;
    }
    const failure = this.failures;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.options.onRestartDue(this.name, failure);
    }, decision.delayMs);
    this.restartTimer.unref();
  }

  /**
   * Called inside the slot's queue when a restart is due: true (and counted) when the slot is
   * still in error from that same failure. A start, a stop or a newer failure that came while
   * the restart waited in the queue takes over, so no start skips its backoff.
   */
  takeRestart(failure: number): boolean {
    if (this.state !== 'error' || this.failures !== failure) return false;
    this.restarts++;
    return true;
  }

  /** A user's load after a crash loop starts over. */
  resetCrashes(): void {
    this.crashTimes = [];
  }

  private cancelRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  private async terminate(): Promise<void> {
    if (this.pid === null) return;
    this.stopping = true;
    try {
      const result = await stopProcessGroup(this.pid, this.options.stopGraceMs, this.exited ?? undefined);
      if (!result.stopped) throw new SlotError('slot.spawn_failed', `slot ${this.name}: engine pid ${this.pid} survived SIGKILL`, { slot: this.name, pid: this.pid });
      if (result.escalated) await this.log.pump();
    } finally {
      this.stopping = false;
      this.child = null;
      this.pid = null;
    }
  }

  private transition(to: SlotState, reason: string, details?: Record<string, unknown>): void {
    const from = this.state;
    assertTransition(this.name, from, to);
    this.state = to;
    if (to === 'ready') {
      this.lastError = null;
      // Idle time counts from readiness, not from the request that asked for the start: a
      // slow load must not make a slot look idle the moment it is up.
      this.lastUsedAt = Date.now();
      this.watch.start();
    } else this.watch.stop();
    this.options.onTransition({ slot: this.name, from, to, reason, ...(details && { details }) });
    this.persist();
  }

  /** Resolves when state.json holds the latest state (before a graceful exit). */
  flushState(): Promise<void> {
    return this.stateFile.flush();
  }

  private persist(): void {
    this.stateFile.write({
      name: this.name,
      state: this.state,
      pid: this.pid,
      port: this.port,
      model_id: this.modelId,
      base_url: this.baseUrl,
      command: this.command,
      started_at: this.startedAt ? new Date(this.startedAt).toISOString() : null,
      updated_at: new Date().toISOString(),
      message: this.lastError?.message ?? null,
    });
  }
}

/**
 * An engine whose log sits on a full filesystem dies or stalls with nothing in its stderr
 * tail; say why, so the user does not chase the engine. Empty when there is room.
 */
export async function fullDiskHint(stateRoot: string): Promise<string> {
  const fs = await statfs(stateRoot).catch(() => undefined);
  return fs && fs.bavail * fs.bsize < 1024 * 1024 ? ` (the filesystem of ${stateRoot} is full, so the engine cannot write its log: free some space)` : '';
}

export function describeExit(exit: Exit): string {
  if (exit.error) return `could not run: ${exit.error.message}`;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code}`;
}
