// The engine a slot runs: its process, spawned detached with its output in the slot's log
// file (engine-spawn.ts, engine-log.ts) and stopped as a whole process group; what it was
// started with (kept after it stops: state.json and the view show the last run); and what it
// reports (its backend, its memory). An engine adopted from a previous gateway has a pid but
// no child handle, so its death shows only in /proc (adoptedGone), never as an exit event.
// This moves no slot state: the runtime (slot-runtime.ts) decides what an exit means.
import type { ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { HEALTH_TIMEOUT_MS } from '../engines/llama-server/health.js';
import type { EngineAdapter, EngineRuntimeInfo, HealthState } from '../engines/types.js';
import { isRunning, residentMemoryMb, signalGroup, stopProcessGroup, waitForExit } from '../lib/process.js';
import { SlotError } from '../protocol/errors.js';
import type { EngineLog } from './engine-log.js';
import { spawnEngine } from './engine-spawn.js';
import type { StartPlan } from './start-plan.js';

export type EngineExit = { code: number | null; signal: NodeJS.Signals | null; error?: Error };

/** What the last engine run was started with. */
export interface EngineRun {
  baseUrl: string | null;
  modelId: string | null;
  command: string[] | null;
  startedAt: number | null;
}

/** How long to wait for a SIGKILLed engine to be gone before restarting it. */
const KILL_WAIT_MS = 5_000;

export class EngineProcess {
  private child: ChildProcess | null = null;
  private exit: Promise<EngineExit> | null = null;
  private currentPid: number | null = null;
  private terminating = false;
  private adapter: EngineAdapter | null = null;
  private lastRun: EngineRun = { baseUrl: null, modelId: null, command: null, startedAt: null };
  private reported: EngineRuntimeInfo | null = null;
  private memorySample: number | null = null;

  /** `onExit` hears the exit of the engine spawned last, unless terminate() caused it. */
  constructor(
    private readonly slot: string,
    private readonly log: EngineLog,
    private readonly onExit: (exit: EngineExit) => void,
  ) {}

  /** The engine's pid: kept after it died (the view hides it), cleared by terminate(). */
  get pid(): number | null {
    return this.currentPid;
  }

  get run(): Readonly<EngineRun> {
    return this.lastRun;
  }

  /** What the engine reported it computes on (backend, GPU layers); null until known. */
  get runtimeInfo(): EngineRuntimeInfo | null {
    return this.reported;
  }

  /** Resident memory at the last sample (MiB); null when unknown. */
  get memoryMb(): number | null {
    return this.memorySample;
  }

  /** Settles when the spawned engine exits (never for an adopted one). */
  get exited(): Promise<EngineExit> | null {
    return this.exit;
  }

  /** A terminate() is under way: the exit it causes is no crash. */
  get stopping(): boolean {
    return this.terminating;
  }

  /** Throws when the state directory or the log cannot be made, or spawn itself fails. */
  async spawn(plan: StartPlan): Promise<void> {
    const { spec } = plan;
    this.adapter = plan.engine;
    await mkdir(dirname(this.log.path), { recursive: true });
    const spawned = spawnEngine(spec.command, spec.args, spec.env, await this.log.openForChild());
    const child = spawned.child;
    this.child = child;
    this.currentPid = spawned.pid > 0 ? spawned.pid : null;
    this.lastRun = { baseUrl: spec.baseUrl, modelId: plan.modelId, command: [spec.command, ...spec.args], startedAt: Date.now() };
    this.memorySample = null;
    this.reported = null;
    this.exit = new Promise<EngineExit>((resolve) => {
      child.once('error', (error) => resolve({ code: null, signal: null, error }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    void this.exit.then((exit) => {
      if (child !== this.child) return; // an older engine's
      this.child = null;
      this.onExit(exit);
    });
  }

  /** Take over a process a previous gateway spawned (state.json recorded it). */
  adopt(pid: number, run: Omit<EngineRun, 'startedAt'>, adapter: EngineAdapter): void {
    this.adapter = adapter;
    this.child = null;
    this.exit = null;
    this.currentPid = pid;
    this.lastRun = { ...run, startedAt: Date.now() };
  }

  /** For an adopted engine (no exit event): true once its process is gone. */
  async adoptedGone(): Promise<boolean> {
    const pid = this.currentPid;
    return this.child === null && pid !== null && !(await isRunning(pid));
  }

  /** The health watch's probe of a ready engine (bounded). */
  health(): Promise<HealthState> {
    const { baseUrl } = this.lastRun;
    return this.adapter && baseUrl ? this.adapter.health(baseUrl, AbortSignal.timeout(HEALTH_TIMEOUT_MS)) : Promise.resolve('ready');
  }

  /** Ask the adapter what the engine runs on (bounded; unknown on any failure). */
  async learnRuntime(): Promise<void> {
    const { adapter } = this;
    const { baseUrl, command } = this.lastRun;
    if (!adapter?.runtimeInfo || !baseUrl) return;
    await this.log.pump();
    const context = { baseUrl, args: command?.slice(1) ?? [], logLines: this.log.currentEngineLines(), signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) };
    this.reported = await adapter.runtimeInfo(context).catch(() => null);
  }

  /** Sample the engine's resident memory (the tick does, so views and eviction never read /proc). */
  async sampleMemory(live: boolean): Promise<void> {
    const pid = this.currentPid;
    const memory = pid !== null && live ? await residentMemoryMb(pid) : undefined;
    if (this.currentPid === pid) this.memorySample = memory ?? null;
  }

  /** SIGTERM, the grace period, then SIGKILL to the engine's process group. */
  async terminate(graceMs: number): Promise<void> {
    const pid = this.currentPid;
    if (pid === null) return;
    this.terminating = true;
    try {
      const result = await stopProcessGroup(pid, graceMs, this.exit ?? undefined);
      if (!result.stopped) throw new SlotError('slot.spawn_failed', `slot ${this.slot}: engine pid ${pid} survived SIGKILL`, { slot: this.slot, pid });
      if (result.escalated) await this.log.pump();
    } finally {
      this.terminating = false;
      this.child = null;
      this.currentPid = null;
    }
  }

  /** SIGKILL a hung engine's process group (it may ignore SIGTERM) and wait, bounded, for it to go. */
  async kill(): Promise<void> {
    const pid = this.currentPid;
    if (pid === null) return;
    signalGroup(pid, 'SIGKILL');
    await waitForExit(pid, KILL_WAIT_MS, this.exit ?? undefined);
  }
}

export function describeExit(exit: EngineExit): string {
  if (exit.error) return `could not run: ${exit.error.message}`;
  if (exit.signal) return `killed by ${exit.signal}`;
  return `exit code ${exit.code}`;
}
