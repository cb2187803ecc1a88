// POST /v1/images/generations, the dispatcher's side (docs/routing.md,
// "Images and the GPU arbiter"). Which target an image request goes to (a curated model no slot names as its own
// goes to the image slot svc/image finds), and a generation on an image slot (ComfyUI): the
// request normalised, the GPU put in image mode, the slot made ready, the workflow submitted
// and polled, every PNG cached, and the answer with a `_hal0` block saying what ran.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { ResolvedConfig } from '../../config/load.js';
import { DispatchError, ImageError, SvcError } from '../../protocol/errors.js';
import type { GpuArbiter } from '../../slots/gpu-arbiter.js';
import type { SlotSupervisor } from '../../slots/supervisor.js';
import type { Dispatcher } from '../dispatcher.js';
import type { SlotMetrics } from '../metrics.js';
import type { DispatchTarget } from '../types.js';
import { ImageCache } from './cache.js';
import { runComfyWorkflow } from './comfy-client.js';
import { normaliseImageRequest } from './request.js';
import { buildWorkflow, CURATED_IMAGE_MODELS, curatedImageModel, DEFAULT_IMAGE_MODEL, type CuratedImageModel } from './workflow.js';

/** What a generation on a slot uses of the gateway (server/context.ts has each). */
export interface ImageDeps {
  readonly config: ResolvedConfig;
  readonly dispatcher: Pick<Dispatcher, 'waitForSlot'>;
  readonly arbiter: Pick<GpuArbiter, 'enterImageMode'>;
  readonly supervisor: Pick<SlotSupervisor, 'acquire'>;
  readonly metrics: Pick<SlotMetrics, 'start'>;
  readonly images: Pick<ImageCache, 'store'>;
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
export async function imageTarget(dispatcher: Pick<Dispatcher, 'resolve'>, model: string): Promise<DispatchTarget> {
  try {
    return await dispatcher.resolve(model, 'images');
  } catch (error) {
    if (!(error instanceof SvcError) || error.code !== 'model.not_found') throw error;
    if (model !== 'svc/image' && !curatedImageModel(model)) throw notCurated(model);
  }
  try {
    return await dispatcher.resolve('svc/image', 'images');
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

/** Generate on an image slot; `gone` aborts when the client leaves. */
export async function generateOnSlot(deps: ImageDeps, target: Extract<DispatchTarget, { kind: 'slot' }>, requested: string, body: Record<string, unknown>, gone: AbortController) {
  const { slot } = target;
  const entry = deps.config.slots.find((s) => s.name === slot);
  const { job, responseFormat } = normaliseImageRequest(body, imageModelFor(requested, target.model), entry?.config.image ?? { default_size: '1024x1024', default_steps: 0 }, () => randomInt(0, 2 ** 47));
  await deps.arbiter.enterImageMode(slot);
  const ready = await deps.dispatcher.waitForSlot(slot, gone.signal);
  const release = deps.supervisor.acquire(slot);
  const tap = deps.metrics.start(slot);
  try {
    const prefix = `svc-${randomBytes(6).toString('hex')}`;
    const run = await runComfyWorkflow(ready.baseUrl, buildWorkflow(job, prefix), { clientId: randomUUID(), signal: gone.signal, target: { slot } });
    const data = [];
    for (const { png } of run.images) {
      const name = await deps.images.store(png);
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
    tap.end(gone.signal.aborted ? 'cancelled' : 'error', error instanceof SvcError ? error.code : 'system.internal');
    throw error;
  } finally {
    release();
  }
}
