// The slot supervisor: the API the server, dispatch and stacks use over the slots:
// ensureReady for callers (a request, `svc slot load`), load, unload, restart, views, logs,
// and the gateway's start and shutdown. It moves no slot state itself: each SlotRuntime is
// its slot's one writer. Its parts do one job each: slot-registry.ts holds the runtimes and
// builds views, slot-starter.ts starts slots (for callers, at boot, after a crash),
// eviction-loop.ts is the monitor tick and the eviction it applies, adoption.ts takes back
// engines a previous gateway left (behind the init gate), npu-anchor.ts finds the engine that
// serves an NPU shadow, and policy comes from pure functions (eviction.ts, lib/supervision/restart-policy.ts).
import type { ResolvedConfig } from '../config/load.js';
import { isNpuShadow } from '../config/npu.js';
import type { EngineAdapter } from '../engines/types.js';
import { readAvailableMemoryMb } from '../host/memory.js';
import { signalGroup } from '../lib/process.js';
import { SlotError } from '../protocol/errors.js';
import { adoptLeftEngines, InitGate } from './adoption.js';
import { backendMismatch, type BackendMismatch } from './backend.js';
import type { EvictionReason } from './eviction.js';
import { EvictionLoop } from './eviction-loop.js';
import { resolveSlotModel } from './model.js';
import { requireNpuAnchor } from './npu-anchor.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from '../lib/supervision/restart-policy.js';
import type { Transition } from './slot-runtime.js';
import { SlotRegistry } from './slot-registry.js';
import { SlotStarter } from './slot-starter.js';
import type { StartPlan } from './start-plan.js';
import { isLive } from './state-machine.js';
import type { SlotRouting, SlotView } from './view.js';

export interface SupervisorOptions {
  config: () => ResolvedConfig;
  engineFor: (provider: string) => EngineAdapter | undefined;
  onTransition: (t: Transition) => void;
  onEviction?: (slot: string, reason: EvictionReason) => void;
  /** A slot turned ready on another backend than its device asks for (backend.ts). */
  onBackendMismatch?: (slot: string, details: BackendMismatch) => void;
  policy?: RestartPolicy;
  stopGraceMs?: number;
  healthIntervalMs?: number;
  tickMs?: number;
  memAvailableMb?: () => number | Promise<number>;
}

export interface ReadySlot {
  name: string;
  baseUrl: string;
  modelId: string;
  /** This call had to wait for the engine to start (Server-Timing's load;dur). */
  started?: boolean;
}

export class SlotSupervisor {
  private readonly slots: SlotRegistry;
  private readonly gate = new InitGate();
  private readonly eviction: EvictionLoop;
  private readonly starter: SlotStarter;
  /** Set by shutdown and detach: boot starts still to come are dropped. */
  private closing = false;

  constructor(private readonly options: SupervisorOptions) {
    const memAvailableMb = options.memAvailableMb ?? readAvailableMemoryMb;
    this.slots = new SlotRegistry({
      config: options.config,
      engineFor: options.engineFor,
      runtime: {
        policy: options.policy ?? DEFAULT_RESTART_POLICY,
        stopGraceMs: options.stopGraceMs ?? 10_000,
        healthIntervalMs: options.healthIntervalMs ?? 250,
        onTransition: (t) => this.transitioned(t),
        onRestartDue: (name, failure) => void this.starter.restartIfDue(name, failure),
      },
    });
    this.eviction = new EvictionLoop({
      slots: () => options.config().slots.map((entry) => ({ name: entry.name, idleTimeoutS: this.slots.idleTimeout(entry) })),
      limits: () => ({ maxSlots: options.config().svc.slots.max_slots, pressureFloorMb: options.config().svc.slots.evict_pressure_mb }),
      runtimes: this.slots.runtimes,
      memAvailableMb,
      onEviction: options.onEviction,
    });
    const { slots, eviction } = this;
    this.starter = new SlotStarter({ config: options.config, slots, eviction, memAvailableMb, closing: () => this.closing });
  }

  /** Create runtimes for the configured slots, re-adopt engines left running, then start the monitor tick. */
  async init(): Promise<void> {
    this.holdUntilInit();
    const startAgain = (name: string) => void this.ensureReady(name).catch(() => undefined);
    await adoptLeftEngines(this.slots, this.options.config(), startAgain).finally(() => this.releaseHold());
    this.eviction.start(this.options.tickMs ?? 1_000);
  }

  /** From now until init() has looked for engines to adopt, starts and stops wait (adoption.ts, InitGate). */
  holdUntilInit(): void {
    this.gate.hold();
  }

  /** Let waiting starts and stops go (init() is done, or will not run: the server could not listen). */
  releaseHold(): void {
    this.gate.release();
  }

  /** Start every enabled slot that is not running yet (boot-start.ts): after the API listens, in the background; never throws. */
  startEnabled(): Promise<void> {
    return this.starter.startEnabled();
  }

  list(options: { memory?: boolean } = {}): SlotView[] {
    return this.slots.list(options);
  }

  /** Each slot as routing reads it (view.ts, SlotRouting): the /v1 hot path asks per request. */
  routing(): SlotRouting[] {
    return this.slots.routing();
  }

  /** One slot as routing reads it. */
  routingOf(name: string): SlotRouting {
    return this.slots.routingOf(this.slots.entry(name));
  }

  view(name: string, options: { memory?: boolean } = {}): SlotView {
    return this.slots.view(name, options);
  }

  /** Make a slot ready (starting it if needed) and return where it answers. */
  async ensureReady(name: string, signal?: AbortSignal): Promise<ReadySlot> {
    if (this.gate.held) await this.gate.held;
    const entry = this.slots.entry(name);
    if (!entry.config.slot.enabled) throw new SlotError('slot.disabled', `slot ${name} is disabled in ${entry.file}`, { slot: name });
    if (isNpuShadow(entry.config.slot)) {
      const anchor = await this.ensureReady(requireNpuAnchor(entry, this.options.config().slots).name, signal);
      return { name, baseUrl: anchor.baseUrl, modelId: this.slots.nextModel(entry), started: anchor.started };
    }
    const runtime = this.slots.runtimeFor(entry);
    runtime.markUsed();
    const started = runtime.state !== 'ready';
    if (started) await this.starter.startFor(entry, runtime, signal);
    if (runtime.state !== 'ready' || !runtime.baseUrl) {
      throw new SlotError('slot.not_ready', `slot ${name} is ${runtime.state}`, { slot: name, state: runtime.state, last_error: runtime.lastError });
    }
    return { name, baseUrl: runtime.baseUrl, modelId: runtime.modelId ?? '', started };
  }

  /** Count a request in flight on a slot; call the returned function when it ends. */
  acquire(name: string): () => void {
    const entry = this.slots.entry(name);
    return this.slots.runtimeFor(this.slots.anchorOf(entry) ?? entry).acquire();
  }

  /**
   * `svc slot load`, and `svc slot swap` (its route persists the model or not, then loads it).
   * On another `modelId` than the engine runs, it is stopped and started on that model; on the
   * same one it is kept. Also clears a crash loop, so a user can try again. A model given here
   * overrides [model].default until the next config change (clearModelOverride).
   */
  async load(name: string, modelId?: string): Promise<ReadySlot> {
    if (this.gate.held) await this.gate.held;
    const entry = this.slots.entry(name);
    const runtime = this.slots.runtimeFor(entry);
    runtime.resetCrashes();
    if (modelId !== undefined) {
      await resolveSlotModel(entry, this.options.config().registry, modelId, this.slots.engineOf(entry)); // fail before stopping anything
      this.slots.overrideModel(name, modelId);
      // runtime.modelId is what the last run loaded; it only says what runs while the engine is live.
      if (isLive(runtime.state) && runtime.modelId !== modelId) await this.unload(name, 'model change');
    }
    return this.ensureReady(name);
  }

  /** Forget a model override (after the slot file itself was changed). */
  clearModelOverride(name: string): void {
    this.slots.clearModelOverride(name);
  }

  /** The command a start would run, without running it (`svc slot show`). */
  async preview(name: string): Promise<StartPlan['spec']> {
    const entry = this.slots.entry(name);
    const starts = isNpuShadow(entry.config.slot) ? requireNpuAnchor(entry, this.options.config().slots) : entry;
    return (await this.starter.plan(starts, false)).spec;
  }

  async unload(name: string, reason = 'unload'): Promise<void> {
    if (this.gate.held) await this.gate.held;
    await this.slots.runtimeFor(this.slots.entry(name)).interruptAndStop(reason);
  }

  async restart(name: string): Promise<ReadySlot> {
    if (this.gate.held) await this.gate.held;
    await this.unload(name, 'restart');
    return this.load(name);
  }

  async logs(name: string, lines: number): Promise<string[]> {
    return this.slots.runtimeFor(this.slots.entry(name)).log.tail(lines);
  }

  subscribeLogs(name: string, listener: (line: string) => void): () => void {
    return this.slots.runtimeFor(this.slots.entry(name)).log.subscribe(listener);
  }

  /** After a config reload: stop slots that were removed or disabled. */
  async reconcile(): Promise<void> {
    if (this.gate.held) await this.gate.held;
    await this.slots.reconcile();
  }

  /**
   * Forget every engine without stopping it: what a crashed gateway does. Engines keep
   * running for the next gateway to re-adopt; used for handing over and in tests.
   */
  detach(): void {
    this.closing = true;
    this.eviction.stop();
    this.slots.detachAll();
  }

  /**
   * Make every start in progress give up, so callers waiting on a load return at once (the
   * first step of a shutdown: boot starts still to come are dropped too).
   */
  interruptStarts(): void {
    this.closing = true;
    for (const runtime of this.slots.runtimes.values()) runtime.interruptStart();
  }

  /** Stop every engine (graceful gateway shutdown). */
  async shutdown(): Promise<void> {
    if (this.gate.held) await this.gate.held;
    this.closing = true;
    this.eviction.stop();
    await this.slots.stopAll('gateway shutdown');
  }

  /**
   * A shutdown out of time: SIGTERM every engine's process group now, so none outlives the
   * gateway (a slow close hook must not leave engines running with no one to stop them).
   */
  signalEngines(): void {
    for (const runtime of this.slots.runtimes.values()) if (runtime.pid !== null) signalGroup(runtime.pid, 'SIGTERM');
  }

  /** Resolves when every slot's state.json holds its latest state. */
  async flushState(): Promise<void> {
    await Promise.all([...this.slots.runtimes.values()].map((runtime) => runtime.flushState()));
  }

  /** Every transition goes out; a start that turns ready on an unexpected backend also says so. */
  private transitioned(t: Transition): void {
    this.options.onTransition(t);
    if (t.to !== 'ready' || t.reason !== 'healthy') return;
    const device = this.slots.configured(t.slot)?.config.slot.device;
    const mismatch = device ? backendMismatch(device, this.slots.runtimes.get(t.slot)?.runtimeInfo ?? null) : null;
    if (mismatch) this.options.onBackendMismatch?.(t.slot, mismatch);
  }
}
