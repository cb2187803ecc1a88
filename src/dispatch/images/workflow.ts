// The curated image models and the ComfyUI graph built for a request (docs/routing.md,
// "Images and the GPU arbiter"). Pure: no I/O, so the graph a request turns into is unit-tested node by node.
//
// The graph is ComfyUI's API format: node id -> {class_type, inputs}, where an input that
// takes another node's output is [node id, output index]. Node ids follow the reference
// (3 KSampler, 4 CheckpointLoaderSimple, 5 EmptyLatentImage, 6/7 positive/negative
// CLIPTextEncode, 8 VAEDecode, 9 SaveImage), so `_svc.workflow` reads the same everywhere.

/** Sampler settings a model class is tuned for. */
export interface ModelClass {
  name: string;
  steps: number;
  cfg: number;
  sampler: string;
  scheduler: string;
}

const SDXL_TURBO: ModelClass = { name: 'sdxl-turbo', steps: 4, cfg: 1.0, sampler: 'euler_ancestral', scheduler: 'sgm_uniform' };
const SD15: ModelClass = { name: 'sd-1.5', steps: 20, cfg: 7.0, sampler: 'euler', scheduler: 'normal' };

export interface CuratedImageModel {
  id: string;
  /** The checkpoint file ComfyUI loads, from its checkpoints folder. */
  checkpoint: string;
  modelClass: ModelClass;
}

/**
 * The models /v1/images/generations accepts. flux-schnell is listed as curated, but no flux
 * graph exists yet: like the reference, it falls back to the SDXL-turbo graph.
 */
export const CURATED_IMAGE_MODELS: readonly CuratedImageModel[] = [
  { id: 'sdxl-turbo', checkpoint: 'sd_xl_turbo_1.0_fp16.safetensors', modelClass: SDXL_TURBO },
  { id: 'sd-1.5-pruned-emaonly', checkpoint: 'v1-5-pruned-emaonly.safetensors', modelClass: SD15 },
  { id: 'flux-schnell', checkpoint: 'flux1-schnell-fp8.safetensors', modelClass: SDXL_TURBO },
];

export const DEFAULT_IMAGE_MODEL = 'sdxl-turbo';

export function curatedImageModel(id: string): CuratedImageModel | undefined {
  return CURATED_IMAGE_MODELS.find((m) => m.id === id);
}

/** Everything the graph needs, after normalisation (see request.ts). */
export interface ImageJob {
  model: CuratedImageModel;
  prompt: string;
  negativePrompt: string;
  width: number;
  height: number;
  n: number;
  seed: number;
  steps: number;
  cfg: number;
}

type NodeInput = string | number | boolean | [string, number];
export type ComfyWorkflow = Record<string, { class_type: string; inputs: Record<string, NodeInput> }>;

/** The ComfyUI graph for a job; `filenamePrefix` names the files SaveImage writes. */
export function buildWorkflow(job: ImageJob, filenamePrefix: string): ComfyWorkflow {
  const { modelClass } = job.model;
  return {
    '3': {
      class_type: 'KSampler',
      inputs: {
        seed: job.seed,
        steps: job.steps,
        cfg: job.cfg,
        sampler_name: modelClass.sampler,
        scheduler: modelClass.scheduler,
        denoise: 1,
        model: ['4', 0],
        positive: ['6', 0],
        negative: ['7', 0],
        latent_image: ['5', 0],
      },
    },
    '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: job.model.checkpoint } },
    '5': { class_type: 'EmptyLatentImage', inputs: { width: job.width, height: job.height, batch_size: job.n } },
    '6': { class_type: 'CLIPTextEncode', inputs: { text: job.prompt, clip: ['4', 1] } },
    '7': { class_type: 'CLIPTextEncode', inputs: { text: job.negativePrompt, clip: ['4', 1] } },
    '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
    '9': { class_type: 'SaveImage', inputs: { filename_prefix: filenamePrefix, images: ['8', 0] } },
  };
}
