// What svc learns about a model file before it registers it: its size (all parts of a
// split model together), the other parts, the projector sidecar beside it, and, for GGUF,
// the native context length and whether it ships MTP heads. Only the header is read.
import { open, readdir, realpath, stat } from 'node:fs/promises';
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
  /** A `.gguf` file that does not start with the GGUF magic: what it starts with instead; null otherwise. */
  readonly not_gguf: NotGguf | null;
}

/** What a file named .gguf holds instead of a GGUF header: no engine that reads GGUF loads it. */
export interface NotGguf {
  /** A sentence: what its first bytes are. */
  readonly found: string;
  /** Its first bytes (at most 8), as hex. */
  readonly first_bytes: string;
}

const GGUF_MAGIC = Buffer.from('GGUF', 'latin1');

/** What `start` (a file's first bytes) is, when it is not the GGUF magic; null when it is. */
export function notGgufOf(start: Buffer): NotGguf | null {
  if (start.subarray(0, 4).equals(GGUF_MAGIC)) return null;
  const head = start.subarray(0, 8);
  const firstBytes = [...head].map((b) => b.toString(16).padStart(2, '0')).join(' ');
  if (start.length === 0) return { found: 'the file is empty', first_bytes: '' };
  const text = start.toString('latin1');
  const shown = JSON.stringify([...head].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join(''));
  const guess = /^version https:\/\/git-lfs/.test(text) ? ': a Git LFS pointer, not the model (git lfs pull fetches the file itself)'
    : /^\s*</.test(text) ? ': text that looks like an HTML or XML page (a download that saved an error page?)'
      : '';
  return { found: `it starts with ${shown} (${firstBytes}), not the GGUF magic "GGUF"${guess}`, first_bytes: firstBytes };
}

async function firstBytes(path: string, count: number): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(count);
    const { bytesRead } = await file.read(buffer, 0, count, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
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
  let notGguf: NotGguf | null = null;
  const tags = new Set<string>();
  if (hasMtpMarker(path.slice(dirname(path).length + 1))) tags.add('mtp');
  if (path.toLowerCase().endsWith('.gguf')) notGguf = notGgufOf(await firstBytes(path, 64));
  if (notGguf) warnings.push(`not a GGUF file: ${notGguf.found}`);
  else if (path.toLowerCase().endsWith('.gguf')) {
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
    not_gguf: notGguf,
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
