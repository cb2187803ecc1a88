// The gateway's pull manager, wired to the running config: the store, the endpoint and its
// token, the host's free memory, the registry writer queue, the event bus, the activity log
// and the job records in the state directory (taken up again when the manager opens).
import { withRegistry } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { hostCapacity } from '../host/capacity.js';
import type { RegistryHost } from '../models/registry-host.js';
import { Hub, hubSettings } from '../models/hf/hub.js';
import { parsePullRef } from '../protocol/pull-ref.js';
import { PullManager } from '../models/pull/jobs.js';
import { planPull } from '../models/pull/plan.js';
import { PullJobRecords, pullJobsDir } from '../models/pull/records.js';
import { linkPulledFiles, registerPulled } from '../models/pull/register.js';
import { storeOf } from '../config/model-store.js';
import { ModelError } from '../protocol/errors.js';
import type { PullJobPayload, PullPlanPayload } from '../protocol/pulls.js';
import { own } from '../lib/own.js';

// Re-exported for the routes, which load this module (and what it pulls in) on first use.
export { searchRepos } from '../models/hf/search.js';
export { checkPlan } from '../models/pull/plan.js';

/** Range connections per file (Ollama uses up to 16; a few saturate a home link). */
export const PULL_CONNECTIONS = 4;

/** What pulls need of the gateway: what a scan needs, and the state directory for the job records (server/context.ts passes itself, and loads this module on first use). */
export interface PullHost extends RegistryHost {
  readonly paths: SvcPaths;
}

export function hubOf(ctx: Pick<PullHost, 'config'>): Hub {
  return new Hub(hubSettings(process.env, ctx.config.svc.models.pull_allowed_hosts));
}

/** The plan for pulling `ref` as `modelId` (also what --dry-run prints). */
export async function planFor(ctx: PullHost, modelId: string, refText: string, options: { context?: number; signal?: AbortSignal } = {}): Promise<PullPlanPayload> {
  const ref = parsePullRef(refText);
  if ('error' in ref) throw new ModelError('model.pull_invalid_ref', `cannot pull ${JSON.stringify(refText)}: ${ref.error}`, { ref: refText });
  return planPull({
    modelId,
    ref,
    refText,
    store: storeOf(ctx.config),
    hub: hubOf(ctx),
    entry: own(ctx.config.registry.models, modelId),
    context: options.context,
    host: await hostCapacity(ctx.paths),
    connections: PULL_CONNECTIONS,
    stallMs: ctx.config.svc.models.pull_stall_timeout_s * 1000,
    signal: options.signal,
  });
}

/**
 * What the status of a model with no job left (none since the record was pruned, or pulled
 * before records were kept) says: a registered model is there, so its pull is done. The
 * job fields nothing remembers are empty (`id`, `created_at`) or null.
 */
export function registeredPullJob(ctx: Pick<PullHost, 'config'>, modelId: string): PullJobPayload | undefined {
  const entry = own(ctx.config.registry.models, modelId);
  if (!entry) return undefined;
  const size = entry.size_bytes ?? 0;
  return {
    id: '', model_id: modelId, ref: entry.hf_repo ? (entry.hf_filename ? `${entry.hf_repo}/${entry.hf_filename}` : entry.hf_repo) : modelId, state: 'done', files: [],
    bytes_done: size, bytes_total: size, bytes_fetched: 0, rate: 0, eta_s: null, created_at: '', started_at: null, finished_at: null, error: null,
    sha256: entry.metadata.sha256, path: entry.path, commit: entry.metadata.commit, resumed: false, force: false,
  };
}

/**
 * The manager with the jobs a previous gateway left: finished ones answer status again,
 * unfinished ones (cut off by a crash or a shutdown) run again from their parts.
 */
export async function openPullManager(ctx: PullHost): Promise<PullManager> {
  const records = new PullJobRecords(pullJobsDir(ctx.paths.stateRoot), (line) => process.stderr.write(`svc: warning: ${line}\n`));
  const manager = createPullManager(ctx, records);
  for (const job of manager.restore(await records.load())) {
    ctx.record({ action: 'model.pull_start', target: job.model_id, details: { ref: job.ref, force: job.force, job: job.id, after_restart: true } });
  }
  return manager;
}

function createPullManager(ctx: PullHost, records: PullJobRecords): PullManager {
  const data = (job: PullJobPayload) => ({ model_id: job.model_id, job: job.id, ref: job.ref, bytes_done: job.bytes_done, bytes_total: job.bytes_total });
  return new PullManager({
    cap: () => ctx.config.svc.models.pull_parallel_cap,
    queueMax: () => ctx.config.svc.models.pull_queue_max,
    connections: PULL_CONNECTIONS,
    stallMs: () => ctx.config.svc.models.pull_stall_timeout_s * 1000,
    hub: () => hubOf(ctx),
    records,
    plan: (job, signal, context) => planFor(ctx, job.model_id, job.ref, { context, signal }),
    register: async (plan, sha256) => {
      await linkPulledFiles(plan);
      await ctx.configWrites.run(async () => {
        const registry = await registerPulled(ctx.paths, plan, sha256);
        ctx.replaceConfig(withRegistry(ctx.config, registry));
      });
      ctx.events.publish({ type: 'model.registered', source: 'models', message: `model ${plan.model_id} registered by a pull (${plan.path})`, data: { model: plan.model_id, path: plan.path, source: 'api' } });
      return plan.path;
    },
    publish: (kind, job, extra = {}) => {
      const base = data(job);
      const message = `pull of ${job.model_id} (${job.ref}) ${kind}${kind === 'progress' ? ` ${String(extra.pct)} %` : ''}${job.error ? `: ${job.error.message}` : ''}`;
      const source = 'models';
      switch (kind) {
        case 'queued': return void ctx.events.publish({ type: 'pull.queued', source, message, data: base });
        case 'started': return void ctx.events.publish({ type: 'pull.started', source, message, data: base });
        case 'progress': return void ctx.events.publish({ type: 'pull.progress', source, message, data: { ...base, pct: Number(extra.pct), rate: job.rate, eta_s: job.eta_s } });
        case 'completed':
          ctx.record({ action: 'model.pull', target: job.model_id, details: { ref: job.ref, bytes: job.bytes_total, fetched: job.bytes_fetched, resumed: job.resumed, sha256: job.sha256, path: job.path } });
          return void ctx.events.publish({ type: 'pull.completed', source, message, data: { ...base, sha256: job.sha256, path: job.path } });
        case 'failed':
          ctx.record({ action: 'model.pull', target: job.model_id, outcome: 'error', message: job.error?.message ?? '', details: { ref: job.ref, code: job.error?.code } });
          return void ctx.events.publish({ type: 'pull.failed', severity: 'error', source, message, data: { ...base, error: job.error?.message ?? '', error_code: job.error?.code ?? '' } });
        case 'cancelled':
          ctx.record({ action: 'model.pull_cancel', target: job.model_id, details: { ref: job.ref, discard: Boolean(extra.discard) } });
          return void ctx.events.publish({ type: 'pull.cancelled', severity: 'warn', source, message, data: { ...base, discard: Boolean(extra.discard) } });
        case 'dismissed':
          ctx.record({ action: 'model.pull_dismiss', target: job.model_id, details: { ref: job.ref, job: job.id, state: job.state, discard: Boolean(extra.discard) } });
          return void ctx.events.publish({ type: 'pull.dismissed', source, message, data: { ...base, state: job.state, discard: Boolean(extra.discard) } });
      }
    },
  });
}
