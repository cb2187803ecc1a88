// GET /v1/models and GET /v1/models/{id}: the aggregated model catalog (docs/api.md). The
// remote model lists come through ctx.upstreams (cached, single-flight, bounded by
// [dispatcher].prefetch_timeout_s); the rest is src/dispatch/model-list.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { slotCandidates } from '../../dispatch/candidates.js';
import { buildModelList, findModel, nearModelIds, type ModelList } from '../../dispatch/model-list.js';
import { DispatchError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';

export function registerV1ModelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Listed as public in the spec's allowlist; declared 'v1' here, the auth guard opens it.
  app.get('/v1/models', { config: { access: 'v1' } }, async (request, reply) => modelList(ctx, request, reply));

  // Ids may contain "/" (svc/primary, org/model, a provider's prefix/model): a wildcard, not :id.
  app.get('/v1/models/*', { config: { access: 'v1' } }, async (request, reply) => {
    const id = (request.params as { '*': string })['*'];
    const list = await modelList(ctx, request, reply);
    const entry = findModel(list, id);
    if (!entry) {
      throw new DispatchError('model.not_found', `no slot, svc/* name or upstream lists the model "${id}"`, { model: id, candidates: nearModelIds(list, id) });
    }
    return entry;
  });
}

async function modelList(ctx: ServerContext, _request: FastifyRequest, reply: FastifyReply): Promise<ModelList> {
  // A client that leaves stops waiting for cold remote lists (the shared fetches go on).
  const abort = new AbortController();
  const onClose = () => reply.raw.writableEnded || abort.abort();
  reply.raw.once('close', onClose);
  try {
    // After a disconnect nobody reads the answer: what is cached will do, without an error.
    const catalogs = await ctx.upstreams.catalogs(abort.signal).catch((error: unknown) => {
      if (abort.signal.aborted) return ctx.upstreams.cachedCatalogs();
      throw error;
    });
    const slots = slotCandidates(ctx.config, ctx.supervisor.list({ memory: false }));
    return buildModelList(slots, catalogs, Date.now());
  } finally {
    reply.raw.off('close', onClose);
  }
}
