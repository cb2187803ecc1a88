// Everything a handler may use, in one object: the running config (swapped whole on
// reload, never mutated), the activity log, the event bus, and the one writer queue for
// configuration files.
import { join } from 'node:path';
import { GatewayAuth } from '../auth/gateway-auth.js';
import type { ResponseBounds, ResponseStore } from '../activity/responses-store.js';
import type { ActivityInput, ActivityLog, ActivityOptions } from '../activity/store.js';
import type { ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { SerialQueue } from '../lib/serial-queue.js';
import { Dispatcher } from '../dispatch/dispatcher.js';
import { IMAGE_CACHE_MAX_BYTES, IMAGE_CACHE_MAX_FILES, ImageCache } from '../dispatch/images/cache.js';
import { SlotMetrics } from '../dispatch/metrics.js';
import { UpstreamDirectory } from '../dispatch/upstreams.js';
import { PeerDirectory } from '../peers/directory.js';
import { engineFor } from '../engines/index.js';
import { EventBus } from '../events/bus.js';
import type { EngineAdapter } from '../engines/types.js';
import { GpuArbiter } from '../slots/gpu-arbiter.js';
import type { Transition } from '../slots/slot-runtime.js';
import { SlotConfigService } from '../slots/slot-config.js';
import { SlotCommands } from '../slots/commands.js';
import { ModelCommands } from '../models/commands.js';
import { SlotSupervisor } from '../slots/supervisor.js';
import { readEnvFile } from '../config/env-file.js';
import { McpService } from '../mcp/service.js';
import { MemoryBanks } from '../memory/banks.js';
import { MemoryService } from '../memory/service.js';
import { AgentService } from '../agents/service.js';
import { PiDriver } from '../agents/pi/driver.js';
import { createHermesDriver } from '../agents/hermes/driver.js';
import { hermesLoans } from './hermes-loans.js';
import { gatewayWiring, revokeAgentTokens } from './agent-wiring.js';
import { MemoryGraph } from '../memory/graph/service.js';
import { StackService } from '../stacks/service.js';
import { VERSION } from '../lib/version.js';
import { activityEvent, gpuModeEvent, slotEvictedEvent, slotStateEvent, storePrunedEvent } from './event-sources.js';
import type { PrunedStore, StorePrunedData } from '../protocol/events.js';
import { SlotMetricsEvents } from './metrics-events.js';
import { StreamLimit } from './stream-limit.js';
import type { UpdateService } from '../update/service.js';
import type { PullManager } from '../models/pull/jobs.js';

export interface ListenAddress {
  host: string;
  port: number;
}

const MIB = 1024 * 1024;

export function activityOptions(config: ResolvedConfig): ActivityOptions {
  const { enabled, retention_days, max_rows, max_mb } = config.svc.activity;
  return { enabled, retentionDays: retention_days, maxRows: max_rows, maxBytes: max_mb * MIB };
}

/** The caps of the stored /v1/responses answers ([dispatcher]). */
export function responseBounds(config: ResolvedConfig): ResponseBounds {
  const { responses_max_rows, responses_max_mb } = config.svc.dispatcher;
  return { maxRows: responses_max_rows, maxBytes: responses_max_mb * MIB };
}

export class ServerContext {
  readonly version = VERSION;
  readonly startedAt = new Date();
  /** The event stream (GET /api/events/stream): every state change and activity row is published here. */
  readonly events = new EventBus();
  /** Open server-sent event streams, bounded per gateway and per client (stream-limit.ts). */
  readonly streams = new StreamLimit();
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
  /** Peers and health-checked upstreams, their models, load and breakers (src/peers); polled once serve() starts it. */
  readonly peers: PeerDirectory;
  /** Creating, editing and deleting slot files (src/slots/slot-config.ts). */
  readonly slotConfig: SlotConfigService;
  /** Every change to a slot (load, swap, create, …), each with its arbiter call, event and activity row (src/slots/commands.ts). */
  readonly slotCommands: SlotCommands;
  /** Registering, removing, assigning and scanning models, starting pulls: each with its event and activity row (src/models/commands.ts). */
  readonly modelCommands: ModelCommands;
  /** `metrics.slot` events while the figures change; started by serve(). */
  readonly metricsEvents: SlotMetricsEvents;
  /** Tokens, the proxy identity and the guard every request passes (docs/auth.md); opened by serve(). */
  readonly auth: GatewayAuth;
  /** The stacks, and the one applier that applies them one at a time (src/stacks/service.ts). */
  readonly stacks: StackService;
  /** Tool servers (MCP), the approvals queue and the ToolHost of the omni loop (src/mcp/service.ts). */
  readonly mcp: McpService;
  /** Memory (docs/memory.md): its store opens on first use and closes at shutdown (closeMemory). */
  readonly memory: MemoryService;
  /** Bank administration and the engine's report, over the same store. */
  readonly memoryBanks: MemoryBanks;
  /** Bundled agents (docs/agents.md): the drivers (pi; hermes), agent files, install jobs (src/agents/service.ts). */
  readonly agents: AgentService;
  /** Graph extraction on the pgvector engine: its queue, status and subgraphs (src/memory/graph/). */
  readonly memoryGraph: MemoryGraph;
  /** Stored /v1/responses answers (src/activity/responses-store.ts); opened by serve() with the activity log. */
  responses: ResponseStore | undefined;
  /** Update and rollback jobs (docs/updates.md), loaded on first use: nothing of it is needed before listen. */
  private updateService?: Promise<UpdateService>;
  /** Model pulls (docs/models.md), opened on first use: the promise, so two first uses open one. */
  private pullManager?: Promise<PullManager>;

  constructor(
    readonly paths: SvcPaths,
    config: ResolvedConfig,
    /** Opened by serve() once the API listens (undefined before, and when it cannot be opened). */
    public activity: ActivityLog | undefined,
    engines: (provider: string) => EngineAdapter | undefined = engineFor,
  ) {
    this.current = config;
    this.auth = new GatewayAuth(paths, this.configWrites, () => this.current.env.authEnabled, (line) => process.stderr.write(`${line}\n`));
    this.supervisor = new SlotSupervisor({
      config: () => this.current,
      engineFor: engines,
      onTransition: (t) => this.slotTransition(t),
      onEviction: (slot, reason) => {
        this.events.publish(slotEvictedEvent(slot, reason));
        this.record({ action: 'slot.evict', target: slot, details: { reason } });
      },
      onBackendMismatch: (slot, details) => this.record({ action: 'slot.backend_mismatch', kind: 'event', target: slot, message: details.warnings.join('; '), details: { severity: 'warn', ...details } }),
    });
    this.arbiter = new GpuArbiter({
      supervisor: this.supervisor,
      config: () => this.current,
      onChange: (view, reason) => {
        this.events.publish(gpuModeEvent(view, reason));
        this.record({ action: 'gpu.mode', kind: 'event', target: view.image_slot ?? 'gpu', message: reason, details: { ...view } });
      },
    });
    this.images = new ImageCache(join(paths.stateRoot, 'images', 'cache'), IMAGE_CACHE_MAX_FILES, IMAGE_CACHE_MAX_BYTES, (prune) => this.storePruned('images', prune));
    this.slotConfig = new SlotConfigService(this, this.supervisor, engines);
    this.slotCommands = new SlotCommands({
      supervisor: this.supervisor,
      arbiter: this.arbiter,
      slotConfig: this.slotConfig,
      slotFile: (name) => this.current.slots.find((s) => s.name === name)?.config,
      stateRoot: paths.stateRoot,
      record: (entry) => this.record(entry),
      publish: (event) => this.events.publish(event),
    });
    this.modelCommands = new ModelCommands(this);
    this.peers = new PeerDirectory({
      config: () => this.current,
      onState: (e) => {
        this.events.publish({ type: 'peer.state', source: `peer:${e.peer}`, severity: e.to === 'down' ? 'warn' : 'info', message: `${e.target} ${e.from} -> ${e.to}${e.error ? `: ${e.error}` : ''}`, data: e });
        this.record({ action: 'peer.state', kind: 'event', target: e.target, outcome: e.to === 'down' ? 'error' : 'ok', message: `${e.from} -> ${e.to}${e.error ? `: ${e.error}` : ''}`, details: { ...e } });
      },
      onBreaker: (e) => {
        this.events.publish({ type: 'peer.breaker', source: `peer:${e.peer}`, severity: e.to === 'open' ? 'warn' : 'info', message: `${e.target} breaker ${e.from} -> ${e.to}: ${e.reason}`, data: e });
        this.record({ action: 'peer.breaker', kind: 'event', target: e.target, outcome: e.to === 'open' ? 'error' : 'ok', message: `${e.from} -> ${e.to}: ${e.reason}`, details: { ...e } });
      },
    });
    this.dispatcher = new Dispatcher({
      config: () => this.current, supervisor: this.supervisor, upstreams: this.upstreams, metrics: this.metrics, arbiter: this.arbiter, peers: this.peers,
      onReplica: (c) => this.record({ action: 'dispatch.replica', kind: 'event', target: c.target, outcome: c.outcome, message: `${c.model} -> ${c.target}${c.retried_from ? ` (after ${c.retried_from} failed)` : ''}${c.error ? `: ${c.error}` : ''}`, details: { ...c } }),
    });
    this.metricsEvents = new SlotMetricsEvents(this.events, this.metrics, () => this.supervisor.list({ memory: false }));
    this.stacks = new StackService(this);
    this.mcp = new McpService({
      paths,
      settings: () => this.current.svc.mcp,
      publish: (event) => this.events.publish(event),
      record: (entry) => this.record(entry),
      readApiEnv: () => readEnvFile(paths.apiEnv),
      writes: this.configWrites,
      log: (line) => process.stderr.write(`${line}\n`),
      listeners: () => [this.listening],
    });
    const memoryDeps = {
      config: () => this.current,
      dispatcher: this.dispatcher,
      stateRoot: paths.stateRoot,
      // Loaded on the first memory request (the pg driver is not the gateway's until then, docs/performance.md);
      // the embedded database process starts on the store's first query.
      openStore: async () => (await import('../memory/open-store.js')).openMemoryStore({
        stateRoot: paths.stateRoot,
        pgvectorUrl: this.current.svc.memory.pgvector_url,
        idleTimeoutS: () => this.current.svc.memory.idle_timeout_s,
        onEngineState: (change) => {
          this.events.publish({ type: 'memory.engine', source: 'memory', severity: change.to === 'crashed' || change.to === 'error' ? 'warn' : 'info', message: `memory database ${change.from} -> ${change.to}: ${change.reason}`, data: change });
          if (change.to === 'crashed' || change.to === 'error') this.record({ action: 'memory.engine', kind: 'event', target: 'memory', outcome: 'error', message: change.reason, details: { ...change } });
        },
      }),
      publish: (event: Parameters<EventBus['publish']>[0]) => this.events.publish(event),
      record: (entry: ActivityInput) => this.record(entry),
      log: (line: string) => process.stderr.write(`${line}\n`),
      onAdded: (item: { bank: string; id: string; text: string }) => this.memoryGraph.onAdded(item),
      onStoreOpened: () => void this.memoryGraph.resume(),
      expandRecall: (...args: Parameters<MemoryGraph['expand']>) => this.memoryGraph.expand(...args),
    };
    this.memory = new MemoryService(memoryDeps);
    this.memoryBanks = new MemoryBanks(this.memory, memoryDeps);
    this.agents = new AgentService({
      paths,
      publish: (event) => this.events.publish(event),
      record: (entry) => this.record(entry),
      wiring: (agent) => gatewayWiring(this, agent),
      unwire: (agent) => revokeAgentTokens(this, agent),
    });
    this.agents.registerDriver(new PiDriver());
    this.memoryGraph = new MemoryGraph({ ...memoryDeps, store: () => this.memory.store() });
    this.agents.registerDriver(createHermesDriver(() => hermesLoans(this)));
  }

  /** Every slot state change is an activity row and an event. */
  private slotTransition(t: Transition): void {
    this.events.publish(slotStateEvent(t));
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
    // A slot that left the configuration leaves the metrics with it (GET /api/metrics).
    for (const slot of this.metrics.slots()) if (!next.slots.some((s) => s.name === slot)) this.metrics.forget(slot);
    this.activity?.setOptions(activityOptions(next));
    void this.auth.refresh();
  }

  /** A bounded store removed its oldest entries (docs/troubleshooting.md, "Bounded stores"). */
  storePruned(store: PrunedStore, prune: Omit<StorePrunedData, 'store'>): void {
    this.events.publish(storePrunedEvent({ store, ...prune }));
  }

  /** Record a config change or state change: one activity row and one `activity` event. */
  record(entry: ActivityInput): void {
    this.activity?.record(entry);
    this.events.publish(activityEvent(entry));
  }

  updates(): Promise<UpdateService> {
    return (this.updateService ??= import('../update/service.js').then((m) => new m.UpdateService(this)));
  }

  /**
   * The pull manager with the jobs a previous gateway left. The pull machinery (undici, the
   * GGUF reader, the hashing) loads on the first use, not at start-up (docs/performance.md);
   * an opening that failed is tried again by the next use.
   */
  pulls(): Promise<PullManager> {
    if (!this.pullManager) {
      const opening = import('./pull-service.js').then((m) => m.openPullManager(this));
      opening.catch(() => {
        if (this.pullManager === opening) this.pullManager = undefined;
      });
      this.pullManager = opening;
    }
    return this.pullManager;
  }

  /** Stop the pulls, if any was opened (shutdown): their parts and records stay for the next gateway. */
  async closePulls(): Promise<void> {
    await (await this.pullManager?.catch(() => undefined))?.close();
  }

  uptimeSeconds(): number {
    return Math.round((Date.now() - this.startedAt.getTime()) / 1000);
  }
}
