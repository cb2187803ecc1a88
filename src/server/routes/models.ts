// /api/models: the model registry. Handlers are thin: src/models does the work; here the
// body is checked, writes go through the one-writer queue, the new registry (or slot file)
// is swapped into the running config, and every mutation is an activity row.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withRegistry, withSlotConfig } from '../../config/load.js';
import { effectiveStore } from '../../config/model-store.js';
import { scanRoots } from '../../models/scan.js';
import { scanDetails, scanIntoRegistry, scanPayload } from '../../models/registry-scan.js';
import { assignModel, listModels, registerModel, removeModel, resolveModelRef, viewModel } from '../../models/service.js';
import { SvcError } from '../../protocol/errors.js';
import { HOST_ONLY_MODEL_PATH } from '../../protocol/host-only.js';
import { AssignModelRequestSchema, RegisterModelRequestSchema } from '../../protocol/models.js';
import { parseRequest } from '../../protocol/validate.js';
import { actorOf, booleanQuery, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';

export function registerModelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  /** Run a registry write in the config writer queue (unlike slots.ts's `mutate`, which queues nothing); a failure is recorded before it is rethrown. */
  const queuedWrite = async <T>(request: FastifyRequest, action: string, target: string, operation: () => Promise<T>): Promise<T> => {
    try {
      return await ctx.configWrites.run(operation);
    } catch (error) {
      if (error instanceof SvcError) {
        ctx.record({ action, target, actor: actorOf(request), outcome: 'error', message: error.message, details: { code: error.code, ...error.details } });
      }
      throw error;
    }
  };

  app.get('/api/models', async () => {
    const settings = ctx.config.svc.models;
    return {
      models: await listModels(ctx.config),
      roots: scanRoots(settings),
      store: effectiveStore(settings),
    };
  });

  app.get('/api/models/:ref', async (request) => {
    const { ref } = request.params as { ref: string };
    const config = ctx.config;
    const id = resolveModelRef(config.registry, ref);
    return viewModel(config, id, config.registry.models[id]!);
  });

  app.post('/api/models', async (request, reply) => {
    const body = parseRequest(RegisterModelRequestSchema, objectBody(request));
    const id = body.id;
    // The path names a host file svc will read (and hand to an engine): a host-only key.
    await requireHostAuthority(ctx, request, 'model.register', id, [HOST_ONLY_MODEL_PATH], 'registering a model names a host file (or drop the file in a scanned root and run a scan)');
    const result = await queuedWrite(request, 'model.register', id, async () => {
      const registered = await registerModel(ctx.config, id, { path: body.path, name: body.name, license: body.license, force: body.force });
      ctx.replaceConfig(withRegistry(ctx.config, registered.registry));
      return registered;
    });
    const model = await viewModel(ctx.config, id, result.registry.models[id]!);
    ctx.record({
      action: 'model.register',
      target: id,
      actor: actorOf(request),
      details: { path: model.path, created: result.created, size_bytes: model.size_bytes, context_length: model.context_length, mmproj: model.mmproj },
    });
    ctx.events.publish({ type: 'model.registered', source: 'models', message: `model ${id} registered (${model.path})`, data: { model: id, path: model.path, source: 'api' } });
    reply.code(result.created ? 201 : 200);
    return { model, created: result.created, warnings: result.warnings };
  });

  app.delete('/api/models/:ref', async (request) => {
    const { ref } = request.params as { ref: string };
    const force = booleanQuery(request, 'force');
    const result = await queuedWrite(request, 'model.delete', ref, async () => {
      const removed = await removeModel(ctx.config, ref, { force });
      ctx.replaceConfig(withRegistry(ctx.config, removed.registry));
      return removed;
    });
    ctx.record({ action: 'model.delete', target: result.id, actor: actorOf(request), details: { path: result.path, force, used_by: result.used_by } });
    ctx.events.publish({ type: 'model.removed', source: 'models', message: `model ${result.id} removed from the registry`, data: { model: result.id, path: result.path, force } });
    return { removed: result.id, path: result.path, used_by: result.used_by };
  });

  app.post('/api/models/:ref/assign', async (request) => {
    const { ref } = request.params as { ref: string };
    const { slot } = parseRequest(AssignModelRequestSchema, objectBody(request));
    const result = await queuedWrite(request, 'model.assign', ref, async () => {
      const assigned = await assignModel(ctx.config, ref, slot);
      ctx.replaceConfig(withSlotConfig(ctx.config, assigned.slot, assigned.config));
      return assigned;
    });
    ctx.record({
      action: 'model.assign',
      target: result.id,
      actor: actorOf(request),
      details: { slot: result.slot, before: result.before, after: result.id, ...(result.cleared_path !== null && { cleared_path: result.cleared_path }) },
    });
    ctx.events.publish({ type: 'model.assigned', source: 'models', message: `model ${result.id} assigned to slot ${result.slot}`, data: { model: result.id, slot: result.slot, before: result.before } });
    return { model: result.id, slot: result.slot, before: result.before, cleared_path: result.cleared_path };
  });

  app.post('/api/models/scan', async (request) => {
    const result = await queuedWrite(request, 'model.scan', 'registry.toml', () => scanIntoRegistry(ctx));
    ctx.record({ action: 'model.scan', target: 'registry.toml', actor: actorOf(request), details: scanDetails(result) });
    return scanPayload(result);
  });
}
