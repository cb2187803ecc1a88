// GET /v1/models and GET /v1/models/{id}: the aggregated model catalog (docs/api.md). The
// remote model lists come through ctx.upstreams (cached, single-flight, bounded by
// [dispatcher].prefetch_timeout_s); the slots as the dispatcher resolves them; the rest is
// src/dispatch/model-list.ts.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { buildModelList, describeModel } from '../../dispatch/model-list.js';
import { resolveTarget } from '../../dispatch/resolve.js';
import type { SlotCandidate, UpstreamCatalog } from '../../dispatch/types.js';
import { DispatchError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';

export function registerV1ModelRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Listed as public in the spec's allowlist; declared 'v1' here, the auth guard opens it.
  app.get('/v1/models', async (_request, reply) => {
    const { slots, catalogs } = await sources(ctx, reply);
    return buildModelList(slots, catalogs, Date.now());
  });

  // Ids may contain "/" (svc/primary, org/model, a provider's prefix/model): a wildcard, not :id.
  // Any id a request could be routed with answers, listed or not (a stopped slot's name, say).
  app.get('/v1/models/*', async (request, reply) => {
    const id = (request.params as { '*': string })['*'];
    const { slots, catalogs } = await sources(ctx, reply);
    const found = describeModel(id, slots, catalogs, Date.now());
    if (found && 'disabled' in found) throw ctx.dispatcher.disabledError(found.disabled, id);
    if (!found) {
      const near = resolveTarget(id, 'chat', slots, catalogs);
      throw new DispatchError('model.not_found', `no slot, svc/* name or upstream serves the model "${id}"`, { model: id, candidates: near.kind === 'not_found' ? near.candidates : [] });
    }
    return found;
  });
}

async function sources(ctx: ServerContext, reply: FastifyReply): Promise<{ slots: SlotCandidate[]; catalogs: UpstreamCatalog[] }> {
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
    // Explicit replica groups (peers.toml [models.<id>], docs/scaling.md) are listed as svc's own ids.
    const groups = Object.keys(ctx.config.peers.models);
    return { slots: ctx.dispatcher.candidates(), catalogs: groups.length > 0 ? [{ name: 'svc', modelIds: groups }, ...catalogs] : [...catalogs] };
  } finally {
    reply.raw.off('close', onClose);
  }
}
