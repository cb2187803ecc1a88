// A /v1/images/generations body turned into an ImageJob (docs/routing.md,
// "Images and the GPU arbiter"). Pure.
//
// Rules:
// - `prompt` is required: missing or blank is 422 image.prompt_required.
// - `size` "WxH" (or "auto", or absent: the slot's [image].default_size) is clamped to
//   64..2048 per side and rounded down to a multiple of 8, the latent grid ComfyUI works on.
// - `n` is clamped to 1..8; `response_format` is `url` (default) or `b64_json`.
// - `seed`, `steps`, `cfg`, `negative_prompt` are optional knobs, read from the body or from
//   a nested `extra_body` object (clients that do not merge extra_body send it that way).
//   steps: the request, else the slot's [image].default_steps when > 0, else the class default.
// - Wrong types are 400 request.invalid naming the field; nothing is silently dropped.
import { ImageError, RequestError } from '../../protocol/errors.js';
import type { CuratedImageModel, ImageJob } from './workflow.js';

export type ImageResponseFormat = 'url' | 'b64_json';

export interface ImageSlotDefaults {
  default_size: string;
  default_steps: number;
}

export interface ImageRequest {
  job: ImageJob;
  responseFormat: ImageResponseFormat;
}

const MIN_SIDE = 64;
const MAX_SIDE = 2048;
const MAX_N = 8;
/** ComfyUI seeds are unsigned 64-bit; a JS integer keeps to 2^53. */
const MAX_SEED = Number.MAX_SAFE_INTEGER;

const invalid = (path: string, message: string) =>
  new RequestError('request.invalid', `\`${path}\` ${message}`, { problems: [{ path, message }] });

const clampSide = (value: number) => Math.floor(Math.min(MAX_SIDE, Math.max(MIN_SIDE, value)) / 8) * 8;

/** "WxH" as clamped, 8-aligned sides; null when the text is not WxH. */
export function parseSize(text: string): { width: number; height: number } | null {
  const match = /^(\d{1,5})x(\d{1,5})$/.exec(text.trim());
  if (!match) return null;
  return { width: clampSide(Number(match[1])), height: clampSide(Number(match[2])) };
}

function optionalInt(body: Record<string, unknown>, key: string, min: number, max: number): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(key, `must be an integer from ${min} to ${max}; got ${JSON.stringify(value)}`);
  }
  return value;
}

/** The knobs may also arrive nested in `extra_body`; top-level fields win. */
function knobs(body: Record<string, unknown>): Record<string, unknown> {
  const extra = body.extra_body;
  if (extra === undefined || extra === null) return body;
  if (typeof extra !== 'object' || Array.isArray(extra)) throw invalid('extra_body', 'must be an object');
  return { ...(extra as Record<string, unknown>), ...body };
}

export function normaliseImageRequest(
  body: Record<string, unknown>,
  model: CuratedImageModel,
  defaults: ImageSlotDefaults,
  randomSeed: () => number,
): ImageRequest {
  const { prompt } = body;
  if (prompt === undefined || prompt === null || (typeof prompt === 'string' && prompt.trim() === '')) {
    throw new ImageError('image.prompt_required', '`prompt` is required on /v1/images/generations: describe the image to generate', { problems: [{ path: 'prompt', message: 'required (a non-empty string)' }] });
  }
  if (typeof prompt !== 'string') throw invalid('prompt', `must be a string; got ${typeof prompt}`);

  const sizeText = body.size === undefined || body.size === null || body.size === 'auto' ? defaults.default_size : body.size;
  if (typeof sizeText !== 'string') throw invalid('size', 'must be a string like "1024x1024"');
  const size = parseSize(sizeText);
  if (!size) throw invalid('size', `must look like "1024x1024"; got ${JSON.stringify(sizeText)}`);

  const nValue = body.n ?? 1;
  if (typeof nValue !== 'number' || !Number.isInteger(nValue)) throw invalid('n', `must be an integer; got ${JSON.stringify(nValue)}`);

  const format = body.response_format ?? 'url';
  if (format !== 'url' && format !== 'b64_json') throw invalid('response_format', `must be "url" or "b64_json"; got ${JSON.stringify(format)}`);

  const extra = knobs(body);
  const negative = extra.negative_prompt ?? '';
  if (typeof negative !== 'string') throw invalid('negative_prompt', 'must be a string');
  const cfg = extra.cfg;
  if (cfg !== undefined && cfg !== null && (typeof cfg !== 'number' || !Number.isFinite(cfg) || cfg < 0 || cfg > 100)) {
    throw invalid('cfg', `must be a number from 0 to 100; got ${JSON.stringify(cfg)}`);
  }
  const steps = optionalInt(extra, 'steps', 1, 200) ?? (defaults.default_steps > 0 ? defaults.default_steps : model.modelClass.steps);

  return {
    responseFormat: format,
    job: {
      model,
      prompt,
      negativePrompt: negative,
      ...size,
      n: Math.min(MAX_N, Math.max(1, nValue)),
      seed: optionalInt(extra, 'seed', 0, MAX_SEED) ?? randomSeed(),
      steps,
      cfg: typeof cfg === 'number' ? cfg : model.modelClass.cfg,
    },
  };
}
