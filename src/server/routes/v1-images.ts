// POST /v1/images/generations and GET /api/images/cache/<uuid>.png (SPEC.md rule 7;
// docs/routing.md, "Images").
// - `model` is a curated image model (sdxl-turbo, sd-1.5-pruned-emaonly, flux-schnell), an
//   image slot's name or alias, or svc/image; absent means svc/image. A curated model no slot
//   names as its own goes to the image slot svc/image finds (none: 404 dispatch.no_route
//   naming the model asked for). Anything else a remote upstream serves is forwarded to it
//   as an OpenAI images request; otherwise 404 image.model_not_curated.
// - For an image slot (ComfyUI): the request is normalised (dispatch/images/request.ts), the
//   GPU arbiter puts the GPU in image mode, the slot is made ready, the workflow is submitted
//   and polled, and every PNG is cached; the answer lists `url`s into the cache (or
//   `b64_json`), plus a `_hal0` block saying what ran.
// - With peers, a model only peers serve (or a replica group's id) is forwarded to one of
//   them, and a remote upstream's model is balanced with them (a replica set,
//   docs/scaling.md); a local image slot is not one.
// Both are src/dispatch/images/generate.ts's; here the body is read and the answer relayed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generateOnSlot, imageTarget } from '../../dispatch/images/generate.js';
import type { Forwarded } from '../../dispatch/types.js';
import { cameFromPeer } from '../../peers/hop.js';
import { RequestError } from '../../protocol/errors.js';
import { objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { clientOf, dispatchOn } from './v1-client.js';

export function registerV1ImageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/images/generations', (request, reply) => generate(ctx, request, reply));
  app.get<{ Params: { name: string } }>('/api/images/cache/:name', async (request, reply) => {
    const png = await ctx.images.read(request.params.name);
    // A cached name never gets other bytes: the uuid is new for every image.
    return reply.header('content-type', 'image/png').header('cache-control', 'private, max-age=31536000, immutable').send(png);
  });
}

async function generate(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = objectBody(request);
  const requested = body.model ?? 'svc/image';
  if (typeof requested !== 'string' || requested === '') {
    throw new RequestError('request.invalid', '`model` must be a non-empty string', { problems: [{ path: 'model', message: 'expected a curated image model, an image slot, or svc/image' }] });
  }
  // With peers (docs/scaling.md), a model no local slot serves goes to a peer that serves it,
  // and a remote upstream's model is balanced with the peers serving it: ordinary replicas.
  // A local image slot (ComfyUI, driven by svc itself) is never one of them.
  const replicas = ctx.peers.active && !cameFromPeer(request.headers);
  const forwarded = (fromPeer: boolean): Forwarded => ({
    upstreamPath: '/images/generations', contentType: 'application/json', stream: false, fromPeer,
    serves: (t) => t.kind !== 'slot', body: (model) => JSON.stringify({ ...body, model }),
  });
  const target = await imageTarget(ctx.dispatcher, requested).catch((error: unknown) => {
    if (replicas && (ctx.peers.replicasServing(requested).length > 0 || ctx.peers.groupMembers(requested, false))) return undefined;
    throw error;
  });
  if (target === undefined) return dispatchOn(reply, false, (client) => ctx.dispatcher.dispatch(requested, 'images', forwarded(false), client));
  if (target.kind === 'upstream') {
    if (replicas) return dispatchOn(reply, false, (client) => ctx.dispatcher.dispatch(target.model, 'images', forwarded(false), client));
    return dispatchOn(reply, false, (client) => ctx.dispatcher.forward(target, forwarded(true), client));
  }
  const gone = new AbortController();
  reply.raw.once('close', () => reply.raw.writableEnded || gone.abort());
  return generateOnSlot(ctx, target, requested, body, clientOf(reply), gone);
}
