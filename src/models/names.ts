// Facts read off a model file's name: whether it is a multimodal projector sidecar, whether
// it is one part of a split model, whether it carries an MTP marker, and the registry id a
// scan derives from it.
import { basename, dirname } from 'node:path';
import { SPLIT_PART_PATTERN, idFromStem } from '../protocol/model-ids.js';

/** Any file whose name contains "mmproj" (any case) is a projector sidecar, never a model. */
export function isMmprojName(file: string): boolean {
  return /mmproj/i.test(basename(file));
}

/** The suffix from `extensions` the file name ends with (case-insensitive), if any. */
export function matchExtension(file: string, extensions: readonly string[]): string | undefined {
  const lower = basename(file).toLowerCase();
  return [...extensions].sort((a, b) => b.length - a.length).find((ext) => lower.endsWith(ext.toLowerCase()) && lower.length > ext.length);
}

export interface SplitPart {
  /** The file name without `-0000k-of-0000n<ext>`. */
  readonly prefix: string;
  readonly part: number;
  readonly of: number;
}

/** `name-00001-of-00003.gguf` (llama.cpp's gguf-split naming, also used for safetensors shards). */
export function splitPartOf(file: string): SplitPart | undefined {
  const match = SPLIT_PART_PATTERN.exec(basename(file));
  if (!match) return undefined;
  const part = Number(match[2]);
  const of = Number(match[3]);
  return part >= 1 && part <= of ? { prefix: match[1]!, part, of } : undefined;
}

/** The name of part `part` of the split model `first` belongs to, in the same directory. */
export function splitPartName(first: string, part: number, of: number): string {
  const split = splitPartOf(first);
  const ext = basename(first).slice(basename(first).lastIndexOf('.'));
  const pad = (n: number) => String(n).padStart(5, '0');
  return `${split?.prefix ?? basename(first, ext)}-${pad(part)}-of-${pad(of)}${ext}`;
}

/** A delimited `mtp` marker (`qwen3-mtp-q4`, `model.MTP.gguf`), the spec's MTP-eligibility hint. */
export function hasMtpMarker(text: string): boolean {
  return /(^|[-_.\s])mtp([-_.\s]|$)/i.test(text);
}

const GENERIC_STEMS = new Set(['model', 'weights', 'ggml-model']);

/**
 * The id a scan gives a file: its stem (without the extension and any split-part suffix)
 * lowercased, every character outside [a-z0-9._-] replaced by "-". A generic stem such as
 * `model.gguf` (the pull layout `<store>/<capability>/<id>/model.gguf`) takes its
 * directory's name instead.
 */
export function deriveModelId(file: string, extension: string): string {
  const name = basename(file);
  let stem = name.slice(0, name.length - extension.length);
  const split = splitPartOf(name);
  if (split) stem = split.prefix;
  if (GENERIC_STEMS.has(stem.toLowerCase())) stem = basename(dirname(file)) || stem;
  return idFromStem(stem);
}

/** `id`, or `id-2`, `id-3`, … : the first one `taken` does not hold. */
export function uniqueId(id: string, taken: (candidate: string) => boolean): string {
  if (!taken(id)) return id;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${id.slice(0, 128 - suffix.length)}${suffix}`;
    if (!taken(candidate)) return candidate;
  }
}
