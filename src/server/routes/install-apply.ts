// POST /api/install/apply: first-run provisioning in one request (what `svc setup` sends).
// For each slot asked for: an existing slot file is left alone; a model that is registered
// is used; the tiny demo models are written into the store and registered; any other model
// is pulled (when `pull`) and its slot is created by a later apply, once the pull is done.
// When every slot exists, the first-run sentinel is written. Idempotent: run it again.
import { access, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withRegistry, withSvcToml } from '../../config/load.js';
import { updateSvcToml } from '../../config/settings.js';
import { TINY_MODEL_ID, TINY_RERANKER_ID, writeTinyModel } from '../../engines/gguf/tiny-model.js';
import { engineFor } from '../../engines/index.js';
import { catalogueEntry } from '../../models/catalogue.js';
import { modelStoreOf } from '../../models/scan.js';
import type { PullManager } from '../../models/pull/jobs.js';
import { registerModel } from '../../models/service.js';
import { ConfigError, SvcError } from '../../protocol/errors.js';
import { InstallApplyRequestSchema, type InstallApplyPayload, type InstallSlotOutcome } from '../../protocol/install.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody } from '../request.js';
import { completeInstall } from './install.js';

const DEMO_MODELS: Record<string, 'chat' | 'reranker'> = { [TINY_MODEL_ID]: 'chat', [TINY_RERANKER_ID]: 'reranker' };

export function registerInstallApplyRoute(app: FastifyInstance, ctx: ServerContext, pulls: () => Promise<PullManager>): void {
  app.post('/api/install/apply', async (request: FastifyRequest): Promise<InstallApplyPayload> => {
    const body = parseRequest(InstallApplyRequestSchema, objectBody(request));
    // It names a directory svc writes into and registers files: a host-only change, as POST /api/models is.
    await requireHostAuthority(ctx, request, 'install.apply', 'setup', ['storage_dir', 'slots'], 'setup writes model files and names host paths');
    if (body.storage_dir && resolve(body.storage_dir) !== resolve(storeOf(ctx))) await persistStore(ctx, body.storage_dir, actorOf(request));
    const store = storeOf(ctx);
    const modelsAdded: string[] = [];
    const outcomes: InstallSlotOutcome[] = [];
    for (const { ref: pullRef, ...slot } of body.slots) {
      const base = { name: slot.name, model: slot.model };
      if (ctx.config.slots.some((s) => s.name === slot.name) || (await exists(join(ctx.paths.slotsDir, `${slot.name}.toml`)))) {
        outcomes.push({ ...base, status: 'exists', message: `slots/${slot.name}.toml exists; left as it is` });
        continue;
      }
      // kokoro, moonshine, …: engines that name their model by id need nothing registered.
      const namedById = slot.provider !== undefined && engineFor(slot.provider)?.defaultModelId !== undefined;
      if (!namedById && !ctx.config.registry.models[slot.model]) {
        const demo = DEMO_MODELS[slot.model];
        if (demo) {
          const file = join(store, `${slot.model}.gguf`);
          if (!(await exists(file))) {
            await mkdir(store, { recursive: true });
            await writeTinyModel(file, { variant: demo });
          }
          const registered = await ctx.configWrites.run(() => registerModel(ctx.config, slot.model, { path: file }));
          ctx.replaceConfig(withRegistry(ctx.config, registered.registry));
          ctx.events.publish({ type: 'model.registered', source: 'models', message: `model ${slot.model} registered (${file})`, data: { model: slot.model, path: file, source: 'api' } });
          modelsAdded.push(slot.model);
        } else if (!body.pull) {
          outcomes.push({ ...base, status: 'skipped', message: `model ${slot.model} is not registered and pull is off; pull it (svc model pull ${slot.model}) and run setup again` });
          continue;
        } else {
          const manager = await pulls();
          const ref = pullRef ?? catalogueEntry(slot.model)?.id ?? slot.model;
          const { job } = manager.start(slot.model, ref, { force: false });
          if (job.state === 'failed') outcomes.push({ ...base, status: 'failed', message: job.error?.message ?? 'the pull failed' });
          else outcomes.push({ ...base, status: 'pulling', job: job.id, message: `pulling ${slot.model}; run apply again when it is done` });
          continue;
        }
      }
      try {
        const created = await ctx.slotConfig.create(slot);
        ctx.record({ action: 'slot.create', target: created.name, actor: actorOf(request), details: { ...created, via: 'install.apply' } });
        ctx.events.publish({ type: 'slot.created', source: `slot:${created.name}`, message: `slot ${created.name} created (${created.file})`, data: { slot: created.name, file: created.file, type: created.type, provider: created.provider, model: created.model, port: created.port, device: created.device } });
        outcomes.push({ ...base, status: 'created', port: created.port, ...(created.warnings.length > 0 && { message: created.warnings.join('; ') }) });
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        outcomes.push({ ...base, status: 'failed', message: `${error.code}: ${error.message}` });
      }
    }
    const complete = outcomes.every((o) => o.status === 'created' || o.status === 'exists');
    if (complete) await completeInstall(ctx, actorOf(request));
    ctx.record({ action: 'install.apply', actor: actorOf(request), outcome: complete ? 'ok' : 'error', details: { storage_dir: store, slots: outcomes, models_added: modelsAdded } });
    return { storage_dir: store, slots: outcomes, models_added: modelsAdded, complete };
  });
}

const storeOf = (ctx: ServerContext) => modelStoreOf(ctx.config.svc.models, ctx.paths.stateRoot);
/** Handlers run while requests flow: no synchronous disk work. */
const exists = (path: string) => access(path).then(() => true, () => false);

/** [models].store in svc.toml, through the settings writer (validated, atomic). */
async function persistStore(ctx: ServerContext, dir: string, actor: string): Promise<void> {
  const result = await ctx.configWrites.run(() => updateSvcToml(ctx.paths, { models: { store: dir } }, () => [], true));
  if (!result.ok) throw new ConfigError('config.invalid', `storage_dir not saved: ${result.problems.map((p) => p.message).join('; ')}`, { problems: result.problems });
  const before = ctx.config.svc.models.store;
  ctx.replaceConfig(withSvcToml(ctx.config, result.after));
  ctx.record({ action: 'settings.update', target: 'svc.toml', actor, details: { changes: { 'models.store': { before, after: dir } } } });
  ctx.events.publish({ type: 'settings.changed', source: 'settings', message: 'settings changed: models.store', data: { keys: ['models.store'] } });
}
