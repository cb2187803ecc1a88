// The supervisor's registry: one SlotRuntime per configured slot, made on first use (a view
// of a slot created while requests flow makes it, with no disk work), the model overrides
// that load and swap leave, and the views built from both. The configuration is read at each
// call, since a reload swaps it whole; a slot's NPU anchor (npu-anchor.ts) stands in for a
// shadow wherever its engine is meant.
import type { ResolvedConfig, SlotEntry } from '../config/load.js';
import type { EngineAdapter } from '../engines/types.js';
import { SlotError } from '../protocol/errors.js';
import { slotModelId } from './model.js';
import { npuAnchorFor } from './npu-anchor.js';
import { SlotRuntime, type RuntimeOptions } from './slot-runtime.js';
import { slotRouting, type SlotRouting, slotView, type SlotView } from './view.js';

export interface SlotRegistryOptions {
  config: () => ResolvedConfig;
  engineFor: (provider: string) => EngineAdapter | undefined;
  /** What every runtime is made with; the state root and the health watch's settings come from the config. */
  runtime: Omit<RuntimeOptions, 'stateRoot' | 'watch'>;
}

export class SlotRegistry {
  private readonly byName = new Map<string, SlotRuntime>();
  private readonly modelOverrides = new Map<string, string>();

  constructor(private readonly options: SlotRegistryOptions) {}

  /** The runtimes made so far, by slot name (the eviction loop reads this map as it changes). */
  get runtimes(): ReadonlyMap<string, SlotRuntime> {
    return this.byName;
  }

  /** The configured slot; slot.not_found otherwise. */
  entry(name: string): SlotEntry {
    const entry = this.configured(name);
    if (!entry) throw new SlotError('slot.not_found', `no slot named ${name}`, { slot: name });
    return entry;
  }

  configured(name: string): SlotEntry | undefined {
    return this.options.config().slots.find((s) => s.name === name);
  }

  runtimeFor(entry: SlotEntry): SlotRuntime {
    let runtime = this.byName.get(entry.name);
    if (!runtime) {
      runtime = new SlotRuntime(entry.name, entry.config.slot.port, {
        ...this.options.runtime,
        stateRoot: this.options.config().paths.stateRoot,
        watch: () => {
          const { health_interval_s, health_failures } = this.options.config().svc.slots;
          return { intervalMs: health_interval_s * 1000, failures: health_failures };
        },
      });
      this.byName.set(entry.name, runtime);
    }
    return runtime;
  }

  /** After a config reload: stop the slots removed or disabled, and forget the removed ones. */
  async reconcile(): Promise<void> {
    const wanted = new Map(this.options.config().slots.map((s) => [s.name, s]));
    for (const [name, runtime] of this.byName) {
      const entry = wanted.get(name);
      if (entry?.config.slot.enabled) continue;
      await runtime.interruptAndStop(entry ? 'disabled' : 'removed from configuration');
      if (!entry) {
        runtime.dispose();
        this.byName.delete(name);
      }
    }
  }

  /** Stop every engine for good (a graceful shutdown): state.json says stopped before the process exits. */
  async stopAll(reason: string): Promise<void> {
    await Promise.all([...this.byName.values()].map(async (runtime) => {
      await runtime.interruptAndStop(reason).catch(() => undefined);
      runtime.dispose();
      await runtime.flushState();
    }));
  }

  /** Let every engine go without stopping it (detach), and forget the runtimes. */
  detachAll(): void {
    for (const runtime of this.byName.values()) runtime.detach();
    this.byName.clear();
  }

  modelOverride(name: string): string | undefined {
    return this.modelOverrides.get(name);
  }

  /** A model given to load or swap without persisting; it overrides [model].default until cleared. */
  overrideModel(name: string, modelId: string): void {
    this.modelOverrides.set(name, modelId);
  }

  clearModelOverride(name: string): void {
    this.modelOverrides.delete(name);
  }

  /** The model the slot's next start loads (the override, [model].default, the engine's default). */
  nextModel(entry: SlotEntry): string {
    return slotModelId(entry, this.engineOf(entry), this.modelOverrides.get(entry.name));
  }

  engineOf(entry: SlotEntry): EngineAdapter | undefined {
    return this.options.engineFor(entry.config.slot.provider);
  }

  /** For an NPU shadow, the anchor slot whose engine serves it. */
  anchorOf(entry: SlotEntry): SlotEntry | undefined {
    return npuAnchorFor(entry, this.options.config().slots);
  }

  /**
   * [slot].idle_timeout_s, else [slots].idle_timeout_s (0: never evicted for idleness). An
   * RPC worker defaults to 0: its client is a llama-server on another host, whose requests
   * never pass here to mark it used.
   */
  idleTimeout(entry: SlotEntry): number {
    const { slot } = entry.config;
    return slot.idle_timeout_s ?? (slot.type === 'rpc-worker' ? 0 : this.options.config().svc.slots.idle_timeout_s);
  }

  view(name: string, options: { memory?: boolean } = {}): SlotView {
    const entry = this.entry(name);
    // A shadow shows the engine that serves it: the NPU anchor's state, pid and address.
    const anchor = this.anchorOf(entry);
    return slotView(entry, this.runtimeFor(entry), this.idleTimeout(entry), this.nextModel(entry), options.memory ?? true, anchor && this.runtimeFor(anchor));
  }

  list(options: { memory?: boolean } = {}): SlotView[] {
    return this.options.config().slots.map((entry) => this.view(entry.name, options));
  }

  /** Each slot as routing reads it (view.ts, SlotRouting): the /v1 hot path asks per request. */
  routing(): SlotRouting[] {
    return this.options.config().slots.map((entry) => this.routingOf(entry));
  }

  routingOf(entry: SlotEntry): SlotRouting {
    const anchor = this.anchorOf(entry);
    return slotRouting(entry, this.runtimeFor(entry), this.nextModel(entry), anchor && this.runtimeFor(anchor));
  }
}
