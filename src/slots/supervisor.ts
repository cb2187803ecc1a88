// The slot supervisor: one SlotRuntime per configured slot, ensureReady for callers (a
// request, `svc slot load`), adoption of engines a previous gateway left running, and a
// monitor tick that applies the eviction policy. Policy decisions come from pure functions
// (eviction.ts, restart-policy.ts); this file only applies them.
import type { ResolvedConfig, SlotEntry } from '../config/load.js';
import { isNpuShadow, npuAnchorOf, shadowCapability } from '../config/npu.js';
import { resolveProfile } from '../config/profiles.js';
import { HEALTH_TIMEOUT_MS } from '../engines/llama-server/health.js';
import type { EngineAdapter, EngineRuntimeInfo } from '../engines/types.js';
import { readAvailableMemoryMb } from '../host/memory.js';
import { SlotError, SvcError } from '../protocol/errors.js';
import { backendWarnings } from './backend.js';
import { startEnabledSlots } from './boot-start.js';
import { planEviction, type EvictionReason, type SlotUsage } from './eviction.js';
import { resolveSlotModel, slotModelId } from './model.js';
import { commandLine, isRunning, portFreeWithin, sameCommand, signalGroup } from '../lib/process.js';
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.js';
import { SlotRuntime, type StartPlan, type Transition } from './slot-runtime.js';
import { readSlotState, slotStateDir } from '../config/slot-state-file.js';
import { isLive } from './state-machine.js';
import { slotRouting, type SlotRouting, slotView, type SlotView } from './view.js';

/** How long a start waits for its port to be released (an engine just stopped; see portFreeWithin). */
const PORT_GRACE_MS = 1_500;

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

export interface BackendMismatch {
  device: string;
  backend: string | null;
  gpu_layers: EngineRuntimeInfo['gpuLayers'];
  warnings: string[];
}

export interface ReadySlot {
  name: string;
  baseUrl: string;
  modelId: string;
  /** This call had to wait for the engine to start (Server-Timing's load;dur). */
  started?: boolean;
}

export class SlotSupervisor {
  private readonly runtimes = new Map<string, SlotRuntime>();
  private readonly modelOverrides = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  /** Set by shutdown and detach: boot starts still to come are dropped. */
  private closing = false;

  constructor(private readonly options: SupervisorOptions) {}

  /** Create runtimes for the configured slots and re-adopt engines left running. */
  async init(): Promise<void> {
    this.holdUntilInit();
    for (const entry of this.options.config().slots) this.runtimeFor(entry);
    try {
      await Promise.all([...this.runtimes.values()].map((runtime) => this.adoptOrRestart(runtime)));
    } finally {
      this.releaseHold();
    }
    this.timer = setInterval(() => void this.tick(), this.options.tickMs ?? 1_000);
    this.timer.unref();
  }

  /**
   * From now until init() has looked for engines a previous gateway left, starts and stops
   * wait: a start could put a second engine on an adopted one's port. serve() holds them
   * from before it listens, since init() runs after (docs/performance.md, Start-up).
   */
  holdUntilInit(): void {
    this.adopting ??= new Promise<void>((resolve) => (this.adopted = resolve));
  }

  /** Let waiting starts and stops go (init() is done, or will not run: the server could not listen). */
  releaseHold(): void {
    const release = this.adopted;
    this.adopting = null;
    this.adopted = null;
    release?.();
  }

  private adopting: Promise<void> | null = null;
  private adopted: (() => void) | null = null;

  /**
   * Start every enabled slot that is not running yet (boot-start.ts): after the API
   * listens, in the background; never throws.
   */
  async startEnabled(): Promise<void> {
    await startEnabledSlots({
      config: () => this.options.config(),
      stateOf: (name) => this.runtimes.get(name)?.state ?? 'stopped',
      running: () => this.usage().running,
      memAvailableMb: async () => (this.options.memAvailableMb ?? readAvailableMemoryMb)(),
      start: (name) => this.startIfStopped(name),
      refuse: (name, error) => this.runtimes.get(name)?.refused(error),
      closing: () => this.closing,
    }).catch(() => undefined);
  }

  list(options: { memory?: boolean } = {}): SlotView[] {
    return this.options.config().slots.map((entry) => this.view(entry.name, options));
  }

  /** Each slot as routing reads it (view.ts, SlotRouting): the /v1 hot path asks per request. */
  routing(): SlotRouting[] {
    return this.options.config().slots.map((entry) => this.routingOfEntry(entry));
  }

  /** One slot as routing reads it. */
  routingOf(name: string): SlotRouting {
    return this.routingOfEntry(this.entry(name));
  }

  private routingOfEntry(entry: SlotEntry): SlotRouting {
    const anchor = this.anchorOf(entry);
    const next = slotModelId(entry, this.options.engineFor(entry.config.slot.provider), this.modelOverrides.get(entry.name));
    return slotRouting(entry, this.runtimeFor(entry), next, anchor ? this.runtimeFor(anchor) : undefined);
  }

  view(name: string, options: { memory?: boolean } = {}): SlotView {
    const entry = this.entry(name);
    const next = slotModelId(entry, this.options.engineFor(entry.config.slot.provider), this.modelOverrides.get(name));
    // A shadow shows the engine that serves it: the NPU anchor's state, pid and address.
    const anchor = this.anchorOf(entry);
    const servedBy = anchor ? this.runtimeFor(anchor) : undefined;
    return slotView(entry, this.runtimeFor(entry), this.effectiveIdleTimeout(entry), next, options.memory ?? true, servedBy);
  }

  /** Make a slot ready (starting it if needed) and return where it answers. */
  async ensureReady(name: string, signal?: AbortSignal): Promise<ReadySlot> {
    if (this.adopting) await this.adopting;
    const entry = this.entry(name);
    if (!entry.config.slot.enabled) throw new SlotError('slot.disabled', `slot ${name} is disabled in ${entry.file}`, { slot: name });
    if (isNpuShadow(entry.config.slot)) {
      const anchor = await this.ensureReady(this.requireAnchor(entry).name, signal);
      return { name, baseUrl: anchor.baseUrl, modelId: slotModelId(entry, this.options.engineFor(entry.config.slot.provider), this.modelOverrides.get(name)), started: anchor.started };
    }
    const runtime = this.runtimeFor(entry);
    runtime.lastUsedAt = Date.now();
    const started = runtime.state !== 'ready';
    if (started) {
      const starting = runtime.queue.run(() => this.startNow(entry, runtime));
      await (signal ? abortable(starting, signal) : starting);
    }
    if (runtime.state !== 'ready' || !runtime.baseUrl) {
      throw new SlotError('slot.not_ready', `slot ${name} is ${runtime.state}`, { slot: name, state: runtime.state, last_error: runtime.lastError });
    }
    return { name, baseUrl: runtime.baseUrl, modelId: runtime.modelId ?? '', started };
  }

  /** Count a request in flight on a slot; call the returned function when it ends. */
  acquire(name: string): () => void {
    const entry = this.entry(name);
    return this.runtimeFor(this.anchorOf(entry) ?? entry).acquire();
  }

  /**
   * `svc slot load`: also clears a crash loop, so a user can try again. A model given here
   * (or by swap without persisting) overrides [model].default until the next config change.
   */
  async load(name: string, modelId?: string): Promise<ReadySlot> {
    if (this.adopting) await this.adopting;
    const runtime = this.runtimeFor(this.entry(name));
    runtime.resetCrashes();
    if (modelId !== undefined) {
      const entry = this.entry(name);
      resolveSlotModel(entry, this.options.config().registry, modelId, this.options.engineFor(entry.config.slot.provider)); // fail before stopping anything
      this.modelOverrides.set(name, modelId);
      // runtime.modelId is what the last run loaded; it only says what runs while the engine is live.
      if (isLive(runtime.state) && runtime.modelId !== modelId) await this.unload(name, 'model change');
    }
    return this.ensureReady(name);
  }

  /** Hot-swap a slot's model: stop it and start it on the new model. */
  async swap(name: string, modelId: string): Promise<ReadySlot> {
    return this.load(name, modelId);
  }

  /** Forget a model override (after the slot file itself was changed). */
  clearModelOverride(name: string): void {
    this.modelOverrides.delete(name);
  }

  /** The command a start would run, without running it (`svc slot show`). */
  async preview(name: string): Promise<StartPlan['spec']> {
    const entry = this.entry(name);
    return (await this.plan(isNpuShadow(entry.config.slot) ? this.requireAnchor(entry) : entry, false)).spec;
  }

  async unload(name: string, reason = 'unload'): Promise<void> {
    if (this.adopting) await this.adopting;
    const runtime = this.runtimeFor(this.entry(name));
    runtime.interruptStart();
    await runtime.queue.run(() => runtime.stop(reason));
  }

  async restart(name: string): Promise<ReadySlot> {
    if (this.adopting) await this.adopting;
    await this.unload(name, 'restart');
    return this.load(name);
  }

  async logs(name: string, lines: number): Promise<string[]> {
    return this.runtimeFor(this.entry(name)).log.tail(lines);
  }

  subscribeLogs(name: string, listener: (line: string) => void): () => void {
    return this.runtimeFor(this.entry(name)).log.subscribe(listener);
  }

  /** After a config reload: stop slots that were removed or disabled. */
  async reconcile(): Promise<void> {
    if (this.adopting) await this.adopting;
    const wanted = new Map(this.options.config().slots.map((s) => [s.name, s]));
    for (const [name, runtime] of this.runtimes) {
      const entry = wanted.get(name);
      if (!entry || !entry.config.slot.enabled) {
        runtime.interruptStart();
        await runtime.queue.run(() => runtime.stop(entry ? 'disabled' : 'removed from configuration'));
        if (!entry) {
          runtime.dispose();
          this.runtimes.delete(name);
        }
      }
    }
  }

  /**
   * Forget every engine without stopping it: what a crashed gateway does. Engines keep
   * running for the next gateway to re-adopt; used for handing over and in tests.
   */
  detach(): void {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    for (const runtime of this.runtimes.values()) runtime.detach();
    this.runtimes.clear();
  }

  /**
   * Make every start in progress give up, so callers waiting on a load return at once (the
   * first step of a shutdown: boot starts still to come are dropped too).
   */
  interruptStarts(): void {
    this.closing = true;
    for (const runtime of this.runtimes.values()) runtime.interruptStart();
  }

  /** Stop every engine (graceful gateway shutdown). */
  async shutdown(): Promise<void> {
    if (this.adopting) await this.adopting;
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.runtimes.values()].map(async (runtime) => {
      runtime.interruptStart();
      await runtime.queue.run(() => runtime.stop('gateway shutdown')).catch(() => undefined);
      runtime.dispose();
      await runtime.flushState(); // state.json says stopped before the process exits
    }));
  }

  /** Resolves when every slot's state.json holds its latest state. */
  async flushState(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map((runtime) => runtime.flushState()));
  }

  private async startNow(entry: SlotEntry, runtime: SlotRuntime): Promise<void> {
    if (runtime.state === 'ready') return;
    runtime.port = entry.config.slot.port; // an edit may have moved it since the last start
    let plan: StartPlan;
    try {
      await this.makeRoom(entry.name);
      plan = await this.plan(entry, true);
    } catch (error) {
      if (error instanceof SvcError) runtime.refused(error);
      throw error;
    }
    await runtime.start(plan);
  }

  private async plan(entry: SlotEntry, checkPort: boolean): Promise<StartPlan> {
    const config = this.options.config();
    const { slot } = entry.config;
    const engine = this.options.engineFor(slot.provider);
    if (!engine) throw new SlotError('slot.config_error', `slot ${entry.name}: provider ${slot.provider} has no engine adapter yet`, { slot: entry.name, provider: slot.provider });
    const model = resolveSlotModel(entry, config.registry, this.modelOverrides.get(entry.name), engine);
    const profile = resolveProfile(slot, config.registry.models[model.id]?.defaults.profile, config.profiles.profiles);
    if ('error' in profile) throw new SlotError('slot.config_error', `slot ${entry.name}: ${profile.error}`, { slot: entry.name });
    if (checkPort && !(await portFreeWithin(slot.port, PORT_GRACE_MS))) {
      throw new SlotError('slot.port_in_use', `slot ${entry.name}: port ${slot.port} is already in use by another process`, { slot: entry.name, port: slot.port });
    }
    const spec = await engine.launch({
      slot: entry,
      model,
      profile,
      svc: config.svc,
      stateDir: slotStateDir(config.paths.stateRoot, entry.name),
      baseEnv: process.env,
      modelStore: config.svc.models.store || config.svc.models.roots[0] || config.paths.defaultModelsDir,
    });
    return { spec, engine, modelId: model.id, loadTimeoutMs: slot.load_timeout_s * 1000 };
  }

  /** max_slots: stop LRU idle slots to make room, or refuse with slot.capacity. */
  private async makeRoom(starting: string): Promise<void> {
    const config = this.options.config();
    const plan = planEviction({ ...this.usage(), starting, maxSlots: config.svc.slots.max_slots, memAvailableMb: Number.MAX_SAFE_INTEGER, pressureFloorMb: 0 });
    if (plan.refuse) {
      throw new SlotError('slot.capacity', `cannot start slot ${starting}: max_slots (${config.svc.slots.max_slots}) reached and every running slot is busy`, { slot: starting, running: plan.refuse.running });
    }
    await Promise.all(plan.stop.map((s) => this.evict(s.name, s.reason)));
  }

  /** Never two at once: a slow disk makes a tick late, never piles ticks up. */
  private tick(): Promise<void> {
    return (this.ticking ??= this.tickOnce().finally(() => (this.ticking = null)));
  }

  private async tickOnce(): Promise<void> {
    await Promise.all([...this.runtimes.values()].map(async (runtime) => {
      await runtime.log.pump();
      await runtime.checkAdoptedAlive();
      await runtime.sampleMemory();
    }));
    const config = this.options.config();
    const memory = await (this.options.memAvailableMb ?? readAvailableMemoryMb)();
    const plan = planEviction({ ...this.usage(), maxSlots: 0, memAvailableMb: memory, pressureFloorMb: config.svc.slots.evict_pressure_mb });
    await Promise.all(plan.stop.map((s) => this.evict(s.name, s.reason)));
  }

  private async evict(name: string, reason: EvictionReason): Promise<void> {
    const runtime = this.runtimes.get(name);
    if (!runtime) return;
    this.options.onEviction?.(name, reason);
    await runtime.queue.run(async () => {
      // Re-check inside the queue: a request may have arrived since the plan was made.
      if (runtime.state === 'ready' && runtime.inFlight === 0) await runtime.stop(`evicted: ${reason}`);
    });
  }

  private usage(): { now: number; running: SlotUsage[] } {
    const running: SlotUsage[] = [];
    for (const entry of this.options.config().slots) {
      const runtime = this.runtimes.get(entry.name);
      if (!runtime || !isLive(runtime.state)) continue;
      running.push({
        name: entry.name,
        state: runtime.state as SlotUsage['state'],
        inFlight: runtime.inFlight,
        lastUsedAt: runtime.lastUsedAt,
        idleTimeoutS: this.effectiveIdleTimeout(entry),
        ...(runtime.memoryMb !== null && { memoryMb: runtime.memoryMb }),
      });
    }
    return { now: Date.now(), running };
  }

  private async adoptOrRestart(runtime: SlotRuntime): Promise<void> {
    const saved = readSlotState(this.options.config().paths.stateRoot, runtime.name);
    if (!saved?.pid || !saved.base_url || !['ready', 'warming', 'starting'].includes(saved.state)) return;
    const engine = this.options.engineFor(this.entry(runtime.name).config.slot.provider);
    const sameProcess = (await isRunning(saved.pid)) && sameCommand(await commandLine(saved.pid), saved.command);
    if (sameProcess && engine && (await engine.health(saved.base_url, AbortSignal.timeout(HEALTH_TIMEOUT_MS)).catch(() => 'down')) === 'ready') {
      runtime.adopt(saved.pid, saved.base_url, saved.model_id, saved.command, engine);
      void runtime.learnRuntime(engine, saved.base_url, saved.command?.slice(1) ?? []);
      return;
    }
    if (sameProcess) signalGroup(saved.pid, 'SIGKILL');
    // It was serving before the gateway restarted: bring it back rather than leave it down.
    void this.ensureReady(runtime.name).catch(() => undefined);
  }

  /**
   * A boot start: only a slot still stopped when its turn in the queue comes. One that a
   * request started (or failed to start) meanwhile is left to that request and its backoff.
   */
  private async startIfStopped(name: string): Promise<void> {
    const entry = this.entry(name);
    const runtime = this.runtimeFor(entry);
    await runtime.queue.run(async () => {
      if (runtime.state === 'stopped') await this.startNow(entry, runtime);
    });
  }

  /** A crashed slot's backoff ended: start it again unless something newer came meanwhile. */
  private async restartIfDue(name: string, failure: number): Promise<void> {
    const runtime = this.runtimes.get(name);
    const entry = this.options.config().slots.find((s) => s.name === name);
    if (!runtime || !entry?.config.slot.enabled) return;
    await runtime.queue.run(async () => {
      if (runtime.takeRestart(failure)) await this.startNow(entry, runtime);
    }).catch(() => undefined); // a failed restart is the slot's own error, with its own backoff
  }

  /** Every transition goes out; a start that turns ready on an unexpected backend also says so. */
  private transitioned(t: Transition): void {
    this.options.onTransition(t);
    if (t.to !== 'ready' || t.reason !== 'healthy') return;
    const device = this.options.config().slots.find((e) => e.name === t.slot)?.config.slot.device;
    const info = this.runtimes.get(t.slot)?.runtimeInfo ?? null;
    const warnings = device ? backendWarnings(device, info) : [];
    if (device && warnings.length > 0) this.options.onBackendMismatch?.(t.slot, { device, backend: info?.backend ?? null, gpu_layers: info?.gpuLayers ?? null, warnings });
  }

  /** For an NPU shadow (src/config/npu.ts), the anchor slot whose engine serves it, if any. */
  private anchorOf(entry: SlotEntry): SlotEntry | undefined {
    if (!isNpuShadow(entry.config.slot)) return undefined;
    return npuAnchorOf(this.options.config().slots.map((e) => ({ ...e.config.slot, entry: e })))?.entry;
  }

  /** The anchor of a shadow, able to serve it; slot.config_error saying what to change otherwise. */
  private requireAnchor(entry: SlotEntry): SlotEntry {
    const { slot } = entry.config;
    const anchor = this.anchorOf(entry);
    if (!anchor) {
      throw new SlotError('slot.config_error', `slot ${slot.name} is an NPU ${slot.type} slot, served by the engine of the NPU llm slot, and no enabled slot has device = "npu" and type = "llm"`, { slot: slot.name });
    }
    const capability = shadowCapability(slot)!;
    if (!anchor.config.npu[capability]) {
      throw new SlotError('slot.config_error', `slot ${slot.name} is served by the NPU engine of slot ${anchor.name}, which runs without ${capability === 'embed' ? 'embeddings' : 'speech recognition'}: set [npu].${capability} = true in ${anchor.file}`, { slot: slot.name, anchor: anchor.name });
    }
    return anchor;
  }

  private effectiveIdleTimeout(entry: SlotEntry): number {
    return entry.config.slot.idle_timeout_s ?? this.options.config().svc.slots.idle_timeout_s;
  }

  private entry(name: string): SlotEntry {
    const entry = this.options.config().slots.find((s) => s.name === name);
    if (!entry) throw new SlotError('slot.not_found', `no slot named ${name}`, { slot: name });
    return entry;
  }

  private runtimeFor(entry: SlotEntry): SlotRuntime {
    let runtime = this.runtimes.get(entry.name);
    if (!runtime) {
      runtime = new SlotRuntime(entry.name, entry.config.slot.port, {
        stateRoot: this.options.config().paths.stateRoot,
        policy: this.options.policy ?? DEFAULT_RESTART_POLICY,
        stopGraceMs: this.options.stopGraceMs ?? 10_000,
        healthIntervalMs: this.options.healthIntervalMs ?? 250,
        onTransition: (t) => this.transitioned(t),
        onRestartDue: (name, failure) => void this.restartIfDue(name, failure),
        watch: () => {
          const { health_interval_s, health_failures } = this.options.config().svc.slots;
          return { intervalMs: health_interval_s * 1000, failures: health_failures };
        },
      });
      this.runtimes.set(entry.name, runtime);
    }
    return runtime;
  }
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
