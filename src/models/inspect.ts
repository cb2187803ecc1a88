// What svc learns about a model file before it registers it: its size (all parts of a
// split model together), the other parts, the projector sidecar beside it, and, for GGUF,
// the native context length and whether it ships MTP heads. Only the header is read.
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ggufModelFacts, readGgufHeader } from '../engines/gguf/reader.js';
import { hasMtpMarker, isMmprojName, matchExtension, splitPartName, splitPartOf } from './names.js';

export interface ModelFileFacts {
  /** Bytes of the file, plus every further part of a split model. */
  readonly size_bytes: number;
  /** Parts 2..n of a split model, absolute paths in order; [] otherwise. */
  readonly files: string[];
  /** Parts of a split model that are not there. */
  readonly missing_parts: string[];
  /** The projector sidecar in the same directory, or null. */
  readonly mmproj: string | null;
  /** GGUF `<general.architecture>.context_length`, or null. */
  readonly context_length: number | null;
  /** `mtp` when the GGUF declares MTP (nextn) layers or the file name has an `mtp` marker. */
  readonly tags: string[];
  /** Things that did not stop the inspection, e.g. a GGUF header that could not be read. */
  readonly warnings: string[];
}

/** Inspect a regular file that the caller has already checked exists. */
export async function inspectModelFile(path: string, size: number, extensions: readonly string[]): Promise<ModelFileFacts> {
  const warnings: string[] = [];
  const files: string[] = [];
  const missing: string[] = [];
  let total = size;
  const split = splitPartOf(path);
  if (split && split.part === 1) {
    for (let part = 2; part <= split.of; part++) {
      const other = join(dirname(path), splitPartName(path, part, split.of));
      const info = await stat(other).catch(() => undefined);
      if (info?.isFile()) {
        files.push(other);
        total += info.size;
      } else {
        missing.push(other);
      }
    }
  }

  let contextLength: number | null = null;
  const tags = new Set<string>();
  if (hasMtpMarker(path.slice(dirname(path).length + 1))) tags.add('mtp');
  if (path.toLowerCase().endsWith('.gguf')) {
    try {
      const header = await readGgufHeader(path);
      const facts = ggufModelFacts(header);
      if (facts.contextLength !== undefined && Number.isInteger(facts.contextLength) && facts.contextLength >= 1) contextLength = facts.contextLength;
      const nextn = header.metadata[`${facts.architecture ?? ''}.nextn_predict_layers`];
      if ((typeof nextn === 'number' || typeof nextn === 'bigint') && Number(nextn) > 0) tags.add('mtp');
    } catch (error) {
      warnings.push(`could not read the GGUF header: ${(error as Error).message}`);
    }
  }

  return {
    size_bytes: total,
    files,
    missing_parts: missing,
    mmproj: await findSidecar(dirname(path), extensions),
    context_length: contextLength,
    tags: [...tags],
    warnings,
  };
}

/**
 * The projector sidecar of a directory: the first file (in name order) whose name contains
 * "mmproj" and ends in a model extension. The directory is resolved first, so a model
 * reached through a symlinked directory finds the same sidecar.
 */
export async function findSidecar(dir: string, extensions: readonly string[]): Promise<string | null> {
  let resolved: string;
  let names: string[];
  try {
    resolved = await realpath(dir);
    names = (await readdir(resolved)).sort();
  } catch {
    return null;
  }
  for (const name of names) {
    if (!isMmprojName(name) || !matchExtension(name, extensions)) continue;
    const candidate = join(resolved, name);
    if ((await stat(candidate).catch(() => undefined))?.isFile()) return candidate;
  }
  return null;
}
