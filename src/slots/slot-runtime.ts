// One slot's runtime: its state, its engine, its log and its in-flight count. It is the
// state's one writer (DESIGN.md, "Slot lifecycle"): every field is private, every move goes
// through transition(), and others read through getters and act through the methods below.
// Start and stop run in the slot's queue (serially), so two callers never interleave a
// check-then-act; callers use the supervisor's ensureReady. What it drives holds no state of
// the slot: the engine (engine-process.ts), the wait for health (start-wait.ts), the failures
// and their backoff (crash-recovery.ts), the state.json writer (state-file.ts).
import { join } from 'node:path';
import { slotStateDir } from '../config/slot-state-file.js';
import type { EngineAdapter, EngineRuntimeInfo } from '../engines/types.js';
import { Lifecycle } from '../lib/supervision/lifecycle.js';
import { SlotError, SvcError } from '../protocol/errors.js';
import { CrashRecovery, type SlotFailure } from './crash-recovery.js';
import { EngineLog } from './engine-log.js';
import { EngineProcess, type EngineExit } from './engine-process.js';
import { HealthWatch, type HealthWatchSettings } from './health-watch.js';
import type { RestartPolicy } from '../lib/supervision/restart-policy.js';
import { SlotUse } from './slot-use.js';
import type { StartPlan } from './start-plan.js';
import { waitUntilHealthy } from './start-wait.js';
import { SlotStateWriter } from './state-file.js';
import { illegalTransition, isLive, SLOT_MOVES, type SlotState, type Transition } from './state-machine.js';

export type { Transition } from './state-machine.js';

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

export class SlotRuntime {
  /** The state, the queue of starts and stops, the start in progress (lib/supervision). */
  private readonly life: Lifecycle<SlotState>;
  private detached = false;
  private readonly use = new SlotUse();
  private readonly engineLog: EngineLog;
  private readonly engine: EngineProcess;
  private readonly recovery: CrashRecovery;
  private readonly watch: HealthWatch;
  private readonly stateFile: SlotStateWriter;

  constructor(readonly name: string, private port: number, private readonly options: RuntimeOptions) {
    this.life = new Lifecycle({ subject: `slot ${name}`, table: SLOT_MOVES, initial: 'stopped', illegal: (from, to) => illegalTransition(name, from, to) });
    // No disk work here: a view of a slot created while requests flow builds its runtime.
    this.engineLog = new EngineLog(join(slotStateDir(options.stateRoot, name), 'engine.log'));
    this.engine = new EngineProcess(name, this.engineLog, (exit) => this.engineExited(exit));
    this.recovery = new CrashRecovery({
      slot: name, policy: options.policy, stateRoot: options.stateRoot, log: this.engineLog, engine: this.engine, state: () => this.life.state,
      enterError: (reason, failure) => this.transition('error', reason, failure as unknown as Record<string, unknown>),
      changed: () => this.persist(),
      onRestartDue: (failure) => options.onRestartDue(name, failure),
    });
    this.watch = new HealthWatch({ settings: options.watch, probe: () => this.engine.health(), onUnhealthy: (report) => void this.recovery.unhealthy(report) });
    this.stateFile = new SlotStateWriter(options.stateRoot, (error) => process.stderr.write(`svc: cannot write state of slot ${name}: ${error.message}\n`));
  }

  get state(): SlotState { return this.life.state; }
  get pid(): number | null { return this.engine.pid; }
  get baseUrl(): string | null { return this.engine.run.baseUrl; }
  get modelId(): string | null { return this.engine.run.modelId; }
  get startedAt(): number | null { return this.engine.run.startedAt; }
  get lastUsedAt(): number { return this.use.lastUsedAt; }
  get inFlight(): number { return this.use.inFlight; }
  get lastError(): SlotFailure | null { return this.recovery.lastFailure; }
  get restarts(): number { return this.recovery.restarts; }
  get runtimeInfo(): EngineRuntimeInfo | null { return this.engine.runtimeInfo; }
  get memoryMb(): number | null { return this.engine.memoryMb; }
  /** The engine's log, to read and follow (the tick pumps it). */
  get log(): Pick<EngineLog, 'tail' | 'subscribe'> { return this.engineLog; }

  /** Run `task` in the slot's queue, after the starts and stops asked for before it. */
  serially<T>(task: () => Promise<T>): Promise<T> {
    return this.life.serially(task);
  }

  /**
   * Inside serially(): start the engine on `port` with the plan `prepare` makes (it may stop
   * other slots to make room) and wait until it is healthy; throws a SlotError on failure.
   */
  async start(port: number, prepare: () => Promise<StartPlan>): Promise<void> {
    if (this.life.state === 'ready') return;
    this.port = port; // an edit may have moved it since the last start
    const plan = await prepare().catch((error: unknown) => {
      if (error instanceof SvcError) this.refused(error);
      throw error;
    });
    this.recovery.cancel();
    const signal = this.life.beginRun();
    try {
      await this.launch(plan, signal);
    } catch (error) {
      if (signal.aborted) return; // a stop is queued behind us and takes over
      throw error;
    } finally {
      this.life.endRun(signal);
    }
  }

  /** Inside serially(): stop the engine (SIGTERM, grace, SIGKILL to its group). */
  async stop(reason: string): Promise<void> {
    this.recovery.cancel();
    if (this.life.state === 'stopped') return;
    if (this.life.state === 'error') return this.transition('stopped', reason);
    this.transition('stopping', reason);
    await this.engine.terminate(this.options.stopGraceMs);
    this.transition('stopped', reason);
  }

  /** Give up a start in progress, then stop in the slot's turn. */
  async interruptAndStop(reason: string): Promise<void> {
    this.interruptStart();
    await this.serially(() => this.stop(reason));
  }

  /** Abort a start in progress, so a stop queued behind it does not wait out the load deadline. */
  interruptStart(): void {
    this.life.interrupt();
  }

  /** Take over an engine a previous gateway left running (adoption.ts); it learns what it runs on in the background. */
  adopt(pid: number, baseUrl: string, modelId: string | null, command: string[] | null, adapter: EngineAdapter): void {
    this.engine.adopt(pid, { baseUrl, modelId, command }, adapter);
    this.use.mark();
    this.transition('ready', 'adopted', { pid });
    void this.engine.learnRuntime();
  }

  /**
   * The supervisor's tick: read the engine's new log lines, notice an adopted engine's death
   * (it has no exit event), sample its memory (views and eviction never read /proc themselves).
   */
  async observe(): Promise<void> {
    await this.engineLog.pump();
    const pid = this.pid;
    if (!this.detached && this.life.state === 'ready' && (await this.engine.adoptedGone())) {
      await this.recovery.crashed({ code: null, signal: null }, pid, 'the adopted engine process is gone');
    }
    await this.engine.sampleMemory(isLive(this.life.state));
  }

  /** A request is about to be sent (or a load asked for): idle time counts from now. */
  markUsed(): void {
    this.use.mark();
  }

  /** Count a request in flight; call the returned function when it ends. */
  acquire(): () => void {
    return this.use.acquire();
  }

  /** A start refused before any engine ran (no model, the port taken, no capacity…): the state stays, the view says why. */
  refused(error: SvcError): void {
    this.recovery.refused(error);
  }

  /** Inside serially(), when a restart is due: whether it still answers the slot's failure (crash-recovery.ts). */
  takeRestart(failure: number): boolean {
    return this.recovery.takeRestart(failure);
  }

  /** A user's load after a crash loop starts over. */
  resetCrashes(): void {
    this.recovery.reset();
  }

  dispose(): void {
    this.recovery.cancel();
    this.watch.stop();
  }

  /** Stop watching the engine (it keeps running): no exit handling, no restarts. */
  detach(): void {
    this.recovery.detach();
    this.watch.stop();
    this.detached = true;
  }

  /** Resolves when state.json holds the latest state (before a graceful exit). */
  flushState(): Promise<void> {
    return this.stateFile.flush();
  }

  private async launch(plan: StartPlan, signal: AbortSignal): Promise<void> {
    this.transition('starting', 'start', { model: plan.modelId });
    await this.preflight(plan, signal);
    try {
      await this.engine.spawn(plan);
    } catch (error) {
      // Nothing ran: the log could not be opened (a read-only or full state directory) or
      // the spawn itself failed. The slot must not stay "starting"; a host problem, no retry.
      throw await this.recovery.failedStart('slot.spawn_failed', `cannot start the engine: ${(error as Error).message}`, undefined, false);
    }
    this.use.mark();
    this.persist();
    // The engine's record (pid, port, command) goes to state.json while the engine loads.
    const recorded = this.stateFile.flush();
    const waited = await waitUntilHealthy(plan, {
      healthIntervalMs: this.options.healthIntervalMs,
      logPath: this.engineLog.path,
      exited: this.engine.exited!,
      signal,
      onLoading: () => {
        if (this.life.state === 'starting') this.transition('warming', 'engine answering, model loading');
      },
      learnRuntime: () => this.engine.learnRuntime(),
    });
    if (waited.outcome === 'exited') throw await this.recovery.exitedWhileLoading(waited.exit);
    if (waited.outcome === 'timed_out') {
      await this.engine.terminate(this.options.stopGraceMs);
      throw await this.recovery.failedStart('slot.load_failed', `engine did not become healthy within ${Math.round(plan.loadTimeoutMs / 1000)} s ([slot].load_timeout_s)`);
    }
    if (waited.outcome === 'healthy') this.turnReady();
    // Nobody is told the slot is ready before state.json holds that record: a gateway killed
    // the moment after must leave the next one an engine to re-adopt (a record that says
    // starting is re-adopted as one that says ready is: adoption.ts), not a stray process on
    // the slot's port. Written while the engine loaded, it is normally on disk by now; the
    // write that says ready follows without holding anyone.
    await recorded;
  }

  /**
   * The launch's own check before the engine runs (an RPC worker that must accept a
   * connection): a failure is the slot's error, with an event and the crash backoff's retry,
   * since what it waits for (a worker host) may come back by itself.
   */
  private async preflight(plan: StartPlan, signal: AbortSignal): Promise<void> {
    if (!plan.spec.preflight) return;
    const failed = await plan.spec.preflight(signal).then(() => null, (error: unknown) => error);
    // A stop came meanwhile: no engine is spawned; start() hands over to the stop queued behind it.
    if (signal.aborted) throw new Error('start interrupted');
    if (failed === null) return;
    if (failed instanceof SlotError && failed.code === 'slot.rpc_worker_unreachable') {
      const { slot: _slot, ...details } = failed.details ?? {};
      throw await this.recovery.failedStart(failed.code, failed.message.replace(/^slot [^:]+: /, ''), undefined, true, details);
    }
    throw await this.recovery.failedStart('slot.spawn_failed', `check before the start failed: ${(failed as Error).message}`, undefined, false);
  }

  private turnReady(): void {
    const info = this.runtimeInfo ? { backend: this.runtimeInfo.backend, gpu_layers: this.runtimeInfo.gpuLayers } : {};
    this.transition('ready', 'healthy', { pid: this.pid, startup_ms: Date.now() - (this.startedAt ?? Date.now()), ...info });
  }

  private engineExited(exit: EngineExit): void {
    if (this.detached || this.engine.stopping || this.life.running || this.life.state === 'stopped' || this.life.state === 'error') return;
    if (this.life.state === 'ready') void this.recovery.crashed(exit, this.pid);
    // starting/warming: the start's wait sees the exit and fails the start itself.
  }

  private transition(to: SlotState, reason: string, details?: Record<string, unknown>): void {
    const from = this.life.move(to);
    if (to === 'ready') {
      this.recovery.clear();
      // Idle time counts from readiness, not from the request that asked for the start: a
      // slow load must not make a slot look idle the moment it is up.
      this.use.mark();
      this.watch.start();
    } else this.watch.stop();
    this.options.onTransition({ slot: this.name, from, to, reason, ...(details && { details }) });
    this.persist();
  }

  private persist(): void {
    const { baseUrl: base_url, modelId: model_id, command, startedAt } = this.engine.run;
    const started_at = startedAt ? new Date(startedAt).toISOString() : null;
    const record = { name: this.name, state: this.life.state, pid: this.pid, port: this.port, model_id, base_url, command, started_at };
    this.stateFile.write({ ...record, updated_at: new Date().toISOString(), message: this.lastError?.message ?? null });
  }
}
