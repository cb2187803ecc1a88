// First-run gating: a sentinel file under the state root says setup has completed.
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { writeFileAtomic } from '../../config/atomic.js';
import { actorOf } from '../request.js';
import type { ServerContext } from '../context.js';

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

export function registerInstallRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // What a first-run screen needs: setup is due when it never completed and no model is registered.
  const state = async () => {
    const sentinel = await readSentinel(ctx.paths.installSentinel);
    const hasModels = Object.keys(ctx.config.registry.models).length > 0;
    return {
      completed: sentinel !== undefined,
      completed_at: sentinel?.completed_at ?? null,
      completed_version: sentinel?.version ?? null,
      first_run: sentinel === undefined && !hasModels,
      has_models: hasModels,
      has_default_slot: ctx.config.slots.some((s) => s.config.slot.enabled && s.config.slot.type === 'llm'),
      sentinel_path: ctx.paths.installSentinel,
    };
  };

  app.get('/api/install/state', state);

  app.post('/api/install/complete', async (request) => {
    await completeInstall(ctx, actorOf(request));
    return state();
  });
}

/** Write the first-run sentinel (once: later calls keep the first one). */
export async function completeInstall(ctx: ServerContext, actor: string): Promise<void> {
  await ctx.configWrites.run(async () => {
    if (await readSentinel(ctx.paths.installSentinel)) return; // idempotent
    const sentinel: InstallSentinel = { completed_at: new Date().toISOString(), version: ctx.version };
    await writeFileAtomic(ctx.paths.installSentinel, `${JSON.stringify(sentinel, null, 2)}\n`);
    ctx.record({ action: 'install.complete', actor, details: { ...sentinel } });
  });
}
