// /api/models: the model registry. Handlers are adapters: reads answer from the running
// config; every change is a model command (models/commands.ts: the writer queue, the swap
// into the running config, its event and its activity row, a failure's row too).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResolvedConfig } from '../../config/load.js';
import type { ModelCommands } from '../../models/commands.js';
import { effectiveStore } from '../../config/model-store.js';
import { scanRoots } from '../../models/scan.js';
import { scanPayload } from '../../models/registry-scan.js';
import { listModels, resolveModelRef, viewModel } from '../../models/service.js';
import { HOST_ONLY_MODEL_PATH } from '../../protocol/host-only.js';
import { AssignModelRequestSchema, RegisterModelRequestSchema } from '../../protocol/models.js';
import { parseRequest } from '../../protocol/validate.js';
import { actorOf, booleanQuery, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';

/** What the model routes use: the commands, the running config to read, and the host-only gate of a registration. */
export interface ModelRouteDeps {
  commands: ModelCommands;
  config: () => ResolvedConfig;
  /** A registration names a host file svc will read (and hand to an engine): a host-only key. */
  requireHostPath: (request: FastifyRequest, id: string) => Promise<void>;
}

export function modelRouteDeps(ctx: ServerContext): ModelRouteDeps {
  return {
    commands: ctx.modelCommands,
    config: () => ctx.config,
    requireHostPath: (request, id) => requireHostAuthority(ctx, request, 'model.register', id, [HOST_ONLY_MODEL_PATH], 'registering a model names a host file (or drop the file in a scanned root and run a scan)'),
  };
}

const refOf = (request: FastifyRequest) => (request.params as { ref: string }).ref;

export function registerModelRoutes(app: FastifyInstance, { commands, config, requireHostPath }: ModelRouteDeps): void {
  const origin = (request: FastifyRequest) => ({ actor: actorOf(request) });

  app.get('/api/models', async () => {
    const settings = config().svc.models;
    return { models: await listModels(config()), roots: scanRoots(settings), store: effectiveStore(settings) };
  });

  app.get('/api/models/:ref', async (request) => {
    const running = config();
    const id = resolveModelRef(running.registry, refOf(request));
    return viewModel(running, id, running.registry.models[id]!);
  });

  app.post('/api/models', async (request, reply) => {
    const { id, ...input } = parseRequest(RegisterModelRequestSchema, objectBody(request));
    await requireHostPath(request, id);
    const registered = await commands.register(id, input, origin(request));
    reply.code(registered.created ? 201 : 200);
    return registered;
  });

  app.delete('/api/models/:ref', async (request) => commands.remove(refOf(request), booleanQuery(request, 'force'), origin(request)));

  app.post('/api/models/:ref/assign', async (request) => {
    const { slot } = parseRequest(AssignModelRequestSchema, objectBody(request));
    return commands.assign(refOf(request), slot, origin(request));
  });

  app.post('/api/models/scan', async (request) => scanPayload(await commands.scan(origin(request))));
}
