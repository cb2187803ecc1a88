// First-run gating: a sentinel file under the state root says setup has completed. A
// first-run screen (the dashboard's, `svc setup`) asks whether it is due; provisioning
// (provision.ts) writes the sentinel once every slot it was asked for exists.
import { readFile } from 'node:fs/promises';
import type { ActivityInput } from '../activity/store.js';
import { writeFileAtomic } from '../config/atomic.js';
import type { ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import type { SerialQueue } from '../lib/serial-queue.js';

/** What first-run gating needs of the gateway (server/context.ts passes itself). */
export interface FirstRunHost {
  readonly version: string;
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  readonly configWrites: SerialQueue;
  record(entry: ActivityInput): void;
}

interface InstallSentinel {
  completed_at: string;
  version: string;
}

async function readSentinel(path: string): Promise<InstallSentinel | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<InstallSentinel>;
    return typeof parsed.completed_at === 'string' ? { completed_at: parsed.completed_at, version: String(parsed.version ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

/** What a first-run screen needs: setup is due when it never completed and no model is registered. */
export async function installState(host: Pick<FirstRunHost, 'paths' | 'config'>) {
  const sentinel = await readSentinel(host.paths.installSentinel);
  const { config } = host;
  const hasModels = Object.keys(config.registry.models).length > 0;
  return {
    completed: sentinel !== undefined,
    completed_at: sentinel?.completed_at ?? null,
    completed_version: sentinel?.version ?? null,
    first_run: sentinel === undefined && !hasModels,
    has_models: hasModels,
    has_default_slot: config.slots.some((s) => s.config.slot.enabled && s.config.slot.type === 'llm'),
    sentinel_path: host.paths.installSentinel,
  };
}

/** Write the first-run sentinel (once: later calls keep the first one). */
export async function completeInstall(host: FirstRunHost, actor: string): Promise<void> {
  await host.configWrites.run(async () => {
    if (await readSentinel(host.paths.installSentinel)) return; // idempotent
    const sentinel: InstallSentinel = { completed_at: new Date().toISOString(), version: host.version };
    await writeFileAtomic(host.paths.installSentinel, `${JSON.stringify(sentinel, null, 2)}\n`);
    host.record({ action: 'install.complete', actor, details: { ...sentinel } });
  });
}
