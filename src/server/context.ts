// Everything a handler may use, in one object: the running config (swapped whole on
// reload, never mutated), the activity log, the event bus, and the one writer queue for
// configuration files.
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { ActivityInput, ActivityLog, ActivityOptions } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { SerialQueue } from '../config/serial-queue.js';
import { Dispatcher } from '../dispatch/dispatcher.js';
import { ImageCache } from '../dispatch/images/cache.js';
import { SlotMetrics } from '../dispatch/metrics.js';
import { UpstreamDirectory } from '../dispatch/upstreams.js';
import { engineFor } from '../engines/index.js';
import type { EngineAdapter } from '../engines/types.js';
import { GpuArbiter, type GpuArbiterView } from '../slots/gpu-arbiter.js';
import type { Transition } from '../slots/slot-runtime.js';
import { SlotConfigService } from '../slots/slot-config.js';
import { SlotSupervisor } from '../slots/supervisor.js';
import { VERSION } from '../protocol/version.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** Events the dashboard (and tests) can subscribe to; every state change emits one. */
export interface ServerEvents {
  activity: [entry: ActivityInput];
  'config.replaced': [config: ResolvedConfig];
  'slot.state': [transition: Transition];
  'gpu.mode': [view: GpuArbiterView];
}

export function activityOptions(config: ResolvedConfig): ActivityOptions {
  const { enabled, retention_days, max_rows } = config.svc.activity;
  return { enabled, retentionDays: retention_days, maxRows: max_rows };
}

export class ServerContext {
  readonly version = VERSION;
  readonly startedAt = new Date();
  readonly events = new EventEmitter<ServerEvents>();
  /** One writer for configuration files. */
  readonly configWrites = new SerialQueue();
  listening: ListenAddress = { host: '127.0.0.1', port: 0 };
  private current: ResolvedConfig;

  readonly supervisor: SlotSupervisor;
  /** Remote providers and upstreams, with their cached model lists (one cache per server). */
  readonly upstreams = new UpstreamDirectory(() => this.config, process.env);
  /** Per-slot request counts, latencies, TTFT and tokens/s (GET /api/metrics, /api/status). */
  readonly metrics = new SlotMetrics();
  /** Image mode vs inference mode on shared GPUs (slots/gpu-arbiter.ts). */
  readonly arbiter: GpuArbiter;
  /** Generated images served at /api/images/cache/<uuid>.png. */
  readonly images: ImageCache;
  /** The /v1 hot path: resolution, on-demand loading, forwarding (src/dispatch/dispatcher.ts). */
  readonly dispatcher: Dispatcher;
  /** Creating, editing and deleting slot files (src/slots/slot-config.ts). */
  readonly slotConfig: SlotConfigService;

  constructor(
    readonly paths: SvcPaths,
    config: ResolvedConfig,
    readonly activity: ActivityLog | undefined,
    engines: (provider: string) => EngineAdapter | undefined = engineFor,
  ) {
    this.current = config;
    this.supervisor = new SlotSupervisor({
      config: () => this.current,
      engineFor: engines,
      onTransition: (t) => this.slotTransition(t),
      onEviction: (slot, reason) => this.record({ action: 'slot.evict', target: slot, details: { reason } }),
      onBackendMismatch: (slot, details) => this.record({ action: 'slot.backend_mismatch', kind: 'event', target: slot, message: details.warnings.join('; '), details: { severity: 'warn', ...details } }),
    });
    this.arbiter = new GpuArbiter({
      supervisor: this.supervisor,
      config: () => this.current,
      onChange: (view, reason) => {
        this.events.emit('gpu.mode', view);
        this.record({ action: 'gpu.mode', kind: 'event', target: view.image_slot ?? 'gpu', message: reason, details: { ...view } });
      },
    });
    this.images = new ImageCache(join(paths.stateRoot, 'images', 'cache'));
    this.slotConfig = new SlotConfigService(this, this.supervisor, engines);
    this.dispatcher = new Dispatcher({ config: () => this.current, supervisor: this.supervisor, upstreams: this.upstreams, metrics: this.metrics, arbiter: this.arbiter });
  }

  /** Every slot state change is an activity row and an event. */
  private slotTransition(t: Transition): void {
    this.events.emit('slot.state', t);
    this.record({
      action: 'slot.state',
      kind: 'event',
      target: t.slot,
      outcome: t.to === 'error' ? 'error' : 'ok',
      message: `${t.from} -> ${t.to}: ${t.reason}`,
      details: { from: t.from, to: t.to, reason: t.reason, ...t.details },
    });
  }

  get config(): ResolvedConfig {
    return this.current;
  }

  replaceConfig(next: ResolvedConfig): void {
    this.current = next;
    this.activity?.setOptions(activityOptions(next));
    this.events.emit('config.replaced', next);
  }

  /** Record a config change or state change: one activity row and one event. */
  record(entry: ActivityInput): void {
    this.activity?.record(entry);
    this.events.emit('activity', entry);
  }

  uptimeSeconds(): number {
    return Math.round((Date.now() - this.startedAt.getTime()) / 1000);
  }
}
