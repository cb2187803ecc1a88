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
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ImageCache } from '../../dispatch/images/cache.js';
import { runComfyWorkflow } from '../../dispatch/images/comfy-client.js';
import { normaliseImageRequest } from '../../dispatch/images/request.js';
import { buildWorkflow, CURATED_IMAGE_MODELS, curatedImageModel, DEFAULT_IMAGE_MODEL, type CuratedImageModel } from '../../dispatch/images/workflow.js';
import type { DispatchTarget } from '../../dispatch/types.js';
import { DispatchError, ImageError, RequestError, SvcError } from '../../protocol/errors.js';
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

const notCurated = (model: string) =>
  new ImageError('image.model_not_curated', `"${model}" is not a curated image model (${CURATED_IMAGE_MODELS.map((m) => m.id).join(', ')})`, { model, curated: CURATED_IMAGE_MODELS.map((m) => m.id) });

/** No image slot for a curated model or svc/image: say so, naming what the client asked for. */
const noImageSlot = (model: string) => {
  const asked = model === 'svc/image' ? 'svc/image (any image slot)' : `the curated image model ${model}`;
  const create = `svc slot create <name> --type image -m ${model === 'svc/image' ? DEFAULT_IMAGE_MODEL : model}`;
  return new DispatchError('dispatch.no_route', `no image slot serves ${asked}; create one with \`${create}\``, { model, route: 'images', needs: 'image slot' });
};

/** The slot (or upstream) a request goes to; curated ids fall back to svc/image. */
async function imageTarget(ctx: ServerContext, model: string): Promise<DispatchTarget> {
  try {
    return await ctx.dispatcher.resolve(model, 'images');
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== 'model.not_found') throw error;
    if (model !== 'svc/image' && !curatedImageModel(model)) throw notCurated(model);
  }
  try {
    return await ctx.dispatcher.resolve('svc/image', 'images');
  } catch (error) {
    if (error instanceof SvcError && error.code === 'model.not_found') throw noImageSlot(model);
    throw error;
  }
}

/** The curated model a slot request runs: the one asked for, else the slot's own, else the default. */
function imageModelFor(requested: string, slotModel: string): CuratedImageModel {
  const model = curatedImageModel(requested) ?? (slotModel === '' ? curatedImageModel(DEFAULT_IMAGE_MODEL) : curatedImageModel(slotModel));
  if (!model) throw notCurated(slotModel || requested);
  return model;
}

async function generate(ctx: ServerContext, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = objectBody(request);
  const requested = body.model ?? 'svc/image';
  if (typeof requested !== 'string' || requested === '') {
    throw new RequestError('request.invalid', '`model` must be a non-empty string', { problems: [{ path: 'model', message: 'expected a curated image model, an image slot, or svc/image' }] });
  }
  const target = await imageTarget(ctx, requested);
  if (target.kind === 'upstream') {
    return dispatchOn(reply, false, (client) => ctx.dispatcher.forward(target, { upstreamPath: '/images/generations', contentType: 'application/json', stream: false, body: (model) => JSON.stringify({ ...body, model }) }, client));
  }
  const slot = target.slot;
  const entry = ctx.config.slots.find((s) => s.name === slot);
  const { job, responseFormat } = normaliseImageRequest(body, imageModelFor(requested, target.model), entry?.config.image ?? { default_size: '1024x1024', default_steps: 0 }, () => randomInt(0, 2 ** 47));

  const abort = new AbortController();
  reply.raw.once('close', () => reply.raw.writableEnded || abort.abort());
  await ctx.arbiter.enterImageMode(slot);
  const ready = await ctx.dispatcher.waitForSlot(slot, false, clientOf(reply), abort);
  const release = ctx.supervisor.acquire(slot);
  const tap = ctx.metrics.start(slot);
  try {
    const prefix = `svc-${randomBytes(6).toString('hex')}`;
    const run = await runComfyWorkflow(ready.baseUrl, buildWorkflow(job, prefix), { clientId: randomUUID(), signal: abort.signal, target: { slot } });
    const data = [];
    for (const { png } of run.images) {
      const name = await ctx.images.store(png);
      data.push(responseFormat === 'b64_json' ? { b64_json: png.toString('base64') } : { url: ImageCache.url(name) });
    }
    tap.head(200, 'application/json');
    tap.end('ok');
    return {
      created: Math.floor(Date.now() / 1000),
      data,
      _hal0: {
        model: job.model.id,
        prompt_id: run.promptId,
        upstream: { slot, base_url: ready.baseUrl },
        meta: {
          checkpoint: job.model.checkpoint, model_class: job.model.modelClass.name, width: job.width, height: job.height, n: job.n,
          seed: job.seed, steps: job.steps, cfg: job.cfg, sampler: job.model.modelClass.sampler, scheduler: job.model.modelClass.scheduler, filename_prefix: prefix,
        },
      },
    };
  } catch (error) {
    tap.end(abort.signal.aborted ? 'cancelled' : 'error', error instanceof SvcError ? error.code : 'system.internal');
    throw error;
  } finally {
    release();
  }
}
