import { describe, expect, it } from 'vitest';
import { SvcError } from '../../protocol/errors.js';
import { normaliseImageRequest, parseSize } from './request.js';
import { buildWorkflow, CURATED_IMAGE_MODELS, curatedImageModel } from './workflow.js';

const sdxl = curatedImageModel('sdxl-turbo')!;
const sd15 = curatedImageModel('sd-1.5-pruned-emaonly')!;
const defaults = { default_size: '1024x1024', default_steps: 0 };
const seed = () => 1234;

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof SvcError ? `${error.code} ${JSON.stringify(error.details)}` : String(error);
  }
  return undefined;
}

describe('parseSize', () => {
  it('clamps each side to 64..2048 and rounds down to a multiple of 8', () => {
    expect(parseSize('1024x768')).toEqual({ width: 1024, height: 768 });
    expect(parseSize('10x5000')).toEqual({ width: 64, height: 2048 });
    expect(parseSize('513x1023')).toEqual({ width: 512, height: 1016 });
    expect(parseSize('big')).toBeNull();
    expect(parseSize('12x')).toBeNull();
  });
});

describe('normaliseImageRequest', () => {
  it('fills the slot size and the model class defaults', () => {
    const { job, responseFormat } = normaliseImageRequest({ prompt: 'a fox' }, sdxl, defaults, seed);
    expect(responseFormat).toBe('url');
    expect(job).toMatchObject({ prompt: 'a fox', negativePrompt: '', width: 1024, height: 1024, n: 1, seed: 1234, steps: 4, cfg: 1 });
    expect(normaliseImageRequest({ prompt: 'x' }, sd15, { default_size: '512x512', default_steps: 0 }, seed).job).toMatchObject({ steps: 20, cfg: 7, width: 512 });
  });

  it('takes default_steps over the class default, and the request over both', () => {
    expect(normaliseImageRequest({ prompt: 'x' }, sdxl, { ...defaults, default_steps: 9 }, seed).job.steps).toBe(9);
    expect(normaliseImageRequest({ prompt: 'x', steps: 2 }, sdxl, { ...defaults, default_steps: 9 }, seed).job.steps).toBe(2);
  });

  it('reads the knobs from the body or a nested extra_body; the body wins', () => {
    const { job } = normaliseImageRequest({ prompt: 'x', seed: 7, extra_body: { seed: 8, cfg: 2.5, negative_prompt: 'blur' } }, sdxl, defaults, seed);
    expect(job).toMatchObject({ seed: 7, cfg: 2.5, negativePrompt: 'blur' });
  });

  it('clamps n to 1..8 and accepts size auto', () => {
    expect(normaliseImageRequest({ prompt: 'x', n: 40 }, sdxl, defaults, seed).job.n).toBe(8);
    expect(normaliseImageRequest({ prompt: 'x', n: 0 }, sdxl, defaults, seed).job.n).toBe(1);
    expect(normaliseImageRequest({ prompt: 'x', size: 'auto' }, sdxl, { ...defaults, default_size: '256x128' }, seed).job).toMatchObject({ width: 256, height: 128 });
  });

  it('refuses a missing prompt with image.prompt_required and wrong types with request.invalid naming the field', () => {
    expect(codeOf(() => normaliseImageRequest({}, sdxl, defaults, seed))).toMatch(/^image\.prompt_required/);
    expect(codeOf(() => normaliseImageRequest({ prompt: '  ' }, sdxl, defaults, seed))).toMatch(/^image\.prompt_required/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 3 }, sdxl, defaults, seed))).toMatch(/^request\.invalid .*"prompt"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', size: '1024' }, sdxl, defaults, seed))).toMatch(/"size"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', n: 1.5 }, sdxl, defaults, seed))).toMatch(/"n"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', response_format: 'png' }, sdxl, defaults, seed))).toMatch(/"response_format"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', steps: 0 }, sdxl, defaults, seed))).toMatch(/"steps"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', seed: -1 }, sdxl, defaults, seed))).toMatch(/"seed"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', cfg: 'high' }, sdxl, defaults, seed))).toMatch(/"cfg"/);
    expect(codeOf(() => normaliseImageRequest({ prompt: 'x', extra_body: [] }, sdxl, defaults, seed))).toMatch(/"extra_body"/);
  });
});

describe('buildWorkflow', () => {
  it('wires the reference graph: checkpoint, latent, prompts, sampler, decode, save', () => {
    const { job } = normaliseImageRequest({ prompt: 'a fox', negative_prompt: 'blur', size: '768x512', n: 2, seed: 5 }, sd15, defaults, seed);
    const graph = buildWorkflow(job, 'svc-abc');
    expect(Object.fromEntries(Object.entries(graph).map(([id, node]) => [id, node.class_type]))).toEqual({
      3: 'KSampler', 4: 'CheckpointLoaderSimple', 5: 'EmptyLatentImage', 6: 'CLIPTextEncode', 7: 'CLIPTextEncode', 8: 'VAEDecode', 9: 'SaveImage',
    });
    expect(graph['4']!.inputs.ckpt_name).toBe('v1-5-pruned-emaonly.safetensors');
    expect(graph['5']!.inputs).toEqual({ width: 768, height: 512, batch_size: 2 });
    expect(graph['6']!.inputs.text).toBe('a fox');
    expect(graph['7']!.inputs.text).toBe('blur');
    expect(graph['3']!.inputs).toMatchObject({ seed: 5, steps: 20, cfg: 7, sampler_name: 'euler', scheduler: 'normal', latent_image: ['5', 0], positive: ['6', 0], negative: ['7', 0] });
    expect(graph['9']!.inputs).toEqual({ filename_prefix: 'svc-abc', images: ['8', 0] });
  });

  it('has no flux graph: flux-schnell runs the SDXL-turbo settings on its own checkpoint', () => {
    const flux = curatedImageModel('flux-schnell')!;
    expect(flux.modelClass).toBe(sdxl.modelClass);
    expect(flux.checkpoint).not.toBe(sdxl.checkpoint);
    expect(CURATED_IMAGE_MODELS.map((m) => m.id)).toEqual(['sdxl-turbo', 'sd-1.5-pruned-emaonly', 'flux-schnell']);
  });
});
