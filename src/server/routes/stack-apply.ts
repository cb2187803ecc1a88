// POST /api/stacks/<slug>/apply (?dry_run=true: the plan only) and GET /api/stacks/active
// (which stack was applied last and whether the slot files drifted since). The work is in
// src/stacks/apply.ts; here the applier is wired to the running gateway.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { engineFor } from '../../engines/index.js';
import { readHardwareJson } from '../../host/hardware.js';
import { readAvailableMemoryMb } from '../../host/memory.js';
import { SvcError, type ErrorCode } from '../../protocol/errors.js';
import type { PullManager } from '../../models/pull/jobs.js';
import type { StackActivePayload, StackApplyPayload } from '../../protocol/stacks.js';
import { driftOf, readActiveRecord } from '../../stacks/active.js';
import { StackApplier, type StackChangeCheck } from '../../stacks/apply.js';
import { slotHostOnlyKeys } from '../engine-input-check.js';
import { refusalRecorded, requireHostAuthority } from '../host-authority.js';
import type { ServerContext } from '../context.js';
import { actorOf, booleanQuery } from '../request.js';
import type { Stack } from '../../config/schema/stacks.js';

const appliers = new WeakMap<ServerContext, StackApplier>();
/** How often an apply that pulls looks at its pull jobs. */
const PULL_POLL_MS = 250;

function applierOf(ctx: ServerContext, pulls: () => Promise<PullManager>): StackApplier {
  let applier = appliers.get(ctx);
  if (!applier) {
    applier = new StackApplier({
      config: () => ctx.config,
      replaceConfig: (config) => ctx.replaceConfig(config),
      configWrites: ctx.configWrites,
      supervisor: ctx.supervisor,
      engineFor,
      beforeLoad: async (slot) => {
        if (ctx.supervisor.view(slot, { memory: false }).type === 'image') await ctx.arbiter.enterImageMode(slot);
        else await ctx.arbiter.beforeInference(slot);
      },
      publish: (type, message, data, severity = 'info') => ctx.events.publish({ type, source: 'stacks', severity, message, data } as Parameters<typeof ctx.events.publish>[0]),
      pull: async (modelId) => {
        const manager = await pulls();
        manager.start(modelId, modelId, { force: false });
        for (;;) {
          const job = manager.get(modelId);
          if (!job || job.state === 'done') return;
          if (job.state === 'failed' || job.state === 'cancelled') throw new SvcError((job.error?.code ?? 'model.pull_failed') as ErrorCode, `pulling ${modelId}: ${job.error?.message ?? job.state}`, { model: modelId });
          await new Promise((resolve) => setTimeout(resolve, PULL_POLL_MS));
        }
      },
      host: async () => {
        const probe = await readHardwareJson(ctx.paths).catch(() => null);
        return { ramAvailableMb: await readAvailableMemoryMb(), vramMb: (probe?.gpus ?? []).reduce((sum, gpu) => sum + (gpu.vram_mb ?? 0), 0) };
      },
    });
    appliers.set(ctx, applier);
  }
  return applier;
}

export function registerStackApplyRoutes(app: FastifyInstance, ctx: ServerContext, find: (slug: string) => { stack: Stack }, pulls: () => Promise<PullManager>): void {
  app.post('/api/stacks/:slug/apply', async (request: FastifyRequest): Promise<StackApplyPayload> => {
    const { slug } = request.params as { slug: string };
    const dryRun = booleanQuery(request, 'dry_run');
    const pull = booleanQuery(request, 'pull');
    const { stack } = find(slug);
    try {
      const check: StackChangeCheck = async (changes) => {
        const keys = changes.flatMap(({ slot, before, after }) => slotHostOnlyKeys(ctx, slot, before, after));
        await requireHostAuthority(ctx, request, 'stack.apply', slug, keys, `stack ${slug} would give slots engine input that names a file, a host or code`);
      };
      const result = await applierOf(ctx, pulls).apply(slug, stack, { dryRun, pull, check });
      if (!dryRun) {
        const failed = (result.results ?? []).filter((r) => !r.ok);
        ctx.record({ action: 'stack.apply', target: slug, actor: actorOf(request), outcome: failed.length ? 'error' : 'ok', message: result.summary, details: { hash: result.active?.hash, results: result.results, commit_ms: result.commit_ms, converge_ms: result.converge_ms } });
      }
      return result;
    } catch (error) {
      if (error instanceof SvcError && !dryRun && !refusalRecorded(error)) {
        ctx.record({ action: 'stack.apply', target: slug, actor: actorOf(request), outcome: 'error', message: error.message, details: { code: error.code, ...error.details } });
        ctx.events.publish({ type: 'stack.apply.failed', source: 'stacks', severity: 'error', message: error.message, data: { stack: slug, code: error.code } });
      }
      throw error;
    }
  });

  app.get('/api/stacks/active', async (): Promise<StackActivePayload> => {
    const record = await readActiveRecord(ctx.paths);
    return driftOf(record, new Map(ctx.config.slots.map((s) => [s.name, s.config])));
  });
}
