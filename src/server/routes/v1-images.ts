// POST /v1/images/generations and GET /api/images/cache/<uuid>.png (docs/api.md "The OpenAI-compatible surface";
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
// - With peers, an image model is a replica set (docs/scaling.md): this gateway's image slot,
//   its upstreams and the peers serving the model, or a replica group's members; a slot that
//   fails before answering is passed over for another replica.
// Both are src/dispatch/images/generate.ts's; here the body is read and the answer relayed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ImageCache } from '../../dispatch/images/cache.js';
import { generateOnSlot, imageTarget } from '../../dispatch/images/generate.js';
import { whenGone } from '../../dispatch/client-gone.js';
import { jsonResult } from '../../dispatch/result.js';
import { serverTiming } from '../../dispatch/server-timing.js';
import type { DispatchTarget, Forwarded } from '../../dispatch/types.js';
import { cameFromPeer } from '../../peers/hop.js';
import { RequestError } from '../../protocol/errors.js';
import { objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { dispatchOn } from './v1-client.js';

export function registerV1ImageRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/images/generations', (request, reply) => generate(ctx, request, reply));
  app.get<{ Params: { name: string } }>('/api/images/cache/:name', async (request, reply) => {
    const png = await ctx.images.read(request.params.name);
    // A cached name never gets other bytes: the uuid is new for every image.
    return reply.header('content-type', 'image/png').header('x-content-type-options', 'nosniff').header('cache-control', 'private, max-age=31536000, immutable').send(png);
  });
}

async function generate(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = objectBody(request);
  const requested = body.model ?? 'svc/image';
  if (typeof requested !== 'string' || requested === '') {
    throw new RequestError('request.invalid', '`model` must be a non-empty string', { problems: [{ path: 'model', message: 'expected a curated image model, an image slot, or svc/image' }] });
  }
  // A peer's url would name its own cache, which the client may not reach: a peer is asked for
  // b64_json and its images are cached here (the answer's urls are this gateway's).
  const wantsUrl = (body.response_format ?? 'url') === 'url';
  const forwarded: Forwarded = {
    upstreamPath: '/images/generations', contentType: 'application/json', stream: false,
    body: (model, target) => JSON.stringify({ ...body, model, ...(wantsUrl && target.kind === 'peer' && { response_format: 'b64_json' }) }),
    rewriteAnswer: (target) => (wantsUrl && target.kind === 'peer' ? (answer) => cacheImages(ctx, answer) : undefined),
  };
  return dispatchOn(reply, async (client) => {
    const call = { ...forwarded, ...client, model: requested, route: 'images' as const };
    const onSlot = async (slot: Extract<DispatchTarget, { kind: 'slot' }>) => {
      const gone = new AbortController();
      whenGone(client.signal, () => gone.abort());
      return jsonResult(200, await generateOnSlot(ctx, slot, requested, body, gone), { 'server-timing': serverTiming(client.timing.arrivedAt) });
    };
    // With peers (docs/scaling.md) an image model is a replica set like any other: this
    // gateway's image slot (driven here, a ComfyUI workflow), its upstreams and the peers that
    // serve it; a group id's members. A request from a peer stays here.
    if (ctx.peers.active && !cameFromPeer(request.headers)) {
      return ctx.dispatcher.dispatch({ ...call, local: { resolve: () => imageTarget(ctx.dispatcher, requested), serveSlot: onSlot } });
    }
    const target = await imageTarget(ctx.dispatcher, requested);
    return target.kind === 'upstream' ? ctx.dispatcher.forward(target, call) : onSlot(target);
  });
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** An images answer with b64_json entries, each PNG put in this gateway's cache and answered as its url. */
async function cacheImages(ctx: ServerContext, answer: unknown): Promise<unknown> {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return answer;
  const cached = [];
  for (const item of data as Array<Record<string, unknown>>) {
    if (typeof item?.b64_json !== 'string') {
      cached.push(item);
      continue;
    }
    const png = Buffer.from(item.b64_json, 'base64');
    // Only a PNG is served from this gateway's origin; anything else stays the peer's b64_json.
    if (!png.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
      cached.push(item);
      continue;
    }
    const { b64_json: _b64, ...rest } = item;
    cached.push({ ...rest, url: ImageCache.url(await ctx.images.store(png)) });
  }
  return { ...(answer as object), data: cached };
}
