// Which adapter serves [memory].engine: hindsight (the daemon, with its degraded mode and
// the outbox in svc's own store) or mem0; pgvector is the service's own SQL store (none).
// The addresses and keys: [memory].hindsight_url, else SVC_HINDSIGHT_URL, else
// http://127.0.0.1:9177, key SVC_HINDSIGHT_API_KEY or HINDSIGHT_API_TENANT_API_KEY, probe
// timeout SVC_HINDSIGHT_PROBE_TIMEOUT_S (2 s); [memory].mem0_url with SVC_MEM0_API_KEY.
import { join } from 'node:path';
import type { SqlMemoryStore } from '../store.js';
import type { MemoryStore } from '../types.js';
import { HindsightClient, HINDSIGHT_DEFAULT_KEY, HINDSIGHT_DEFAULT_URL } from './hindsight.js';
import { HindsightEngine } from './hindsight-engine.js';
import { Mem0Engine } from './mem0.js';
import { HindsightOutbox } from './outbox.js';
import type { EngineDeps, MemoryEngineAdapter } from './types.js';

export type { EngineDeps } from './types.js';

export const ADAPTER_ENGINES = ['hindsight', 'mem0'] as const;
export const isAdapterEngine = (engine: string): engine is (typeof ADAPTER_ENGINES)[number] => (ADAPTER_ENGINES as readonly string[]).includes(engine);


export interface AdapterSettings {
  engine: string;
  hindsight_url: string;
  mem0_url: string;
  hindsight_reprobe_interval_s: number;
  /** Also the most writes of one bank the degraded hindsight engine keeps in its outbox. */
  max_items_per_bank: number;
}

/** The marker file that says the degraded hindsight engine's outbox holds writes (hindsight-engine.ts). */
export const outboxMarkerPath = (stateRoot: string) => join(stateRoot, 'memory', 'hindsight-outbox.pending');

/** The client of the daemon [memory] names (also svc memory migrate --from hindsight's, whatever the engine). */
export function hindsightClient(settings: Pick<AdapterSettings, 'hindsight_url'>, env: NodeJS.ProcessEnv = process.env): HindsightClient {
  const probeS = Number(env.SVC_HINDSIGHT_PROBE_TIMEOUT_S);
  return new HindsightClient({
    baseUrl: settings.hindsight_url || env.SVC_HINDSIGHT_URL || HINDSIGHT_DEFAULT_URL,
    apiKey: env.SVC_HINDSIGHT_API_KEY || env.HINDSIGHT_API_TENANT_API_KEY || HINDSIGHT_DEFAULT_KEY,
    probeTimeoutMs: (Number.isFinite(probeS) && probeS > 0 ? probeS : 2) * 1000,
  });
}

export function createEngineAdapter(settings: AdapterSettings, deps: Omit<EngineDeps, 'reprobeIntervalS'> & { stateRoot: string; openStore: () => Promise<MemoryStore> }, env: NodeJS.ProcessEnv = process.env): MemoryEngineAdapter {
  if (settings.engine === 'mem0') return new Mem0Engine(settings.mem0_url, env.SVC_MEM0_API_KEY || undefined);
  return new HindsightEngine(hindsightClient(settings, env), {
    ...deps,
    reprobeIntervalS: () => settings.hindsight_reprobe_interval_s,
    // The outbox lives in svc's own store (migration 4), opened only when degraded writes need it.
    outbox: async () => new HindsightOutbox(((await deps.openStore()) as SqlMemoryStore).db, settings.max_items_per_bank),
    markerPath: outboxMarkerPath(deps.stateRoot),
  });
}
