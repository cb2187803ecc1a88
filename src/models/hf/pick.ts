// Which files of a repo a pull fetches, the way llama.cpp's `-hf org/repo[:quant]` picks
// them (PEERS.md, "llama.cpp's quant pick"): GGUFs that are not projectors, imatrix or
// draft heads; the tag matched as `TAG[.-]` ignoring case; without a tag Q4_K_M, then Q8_0,
// then the first; every part of a split model; and the mmproj sibling closest in bits.
import { splitPartName, splitPartOf } from '../names.js';

export interface RepoFile {
  readonly path: string;
  readonly size: number;
  /** SHA-256 of an LFS file, else null. */
  readonly sha256: string | null;
  /** Git blob SHA-1 (what a non-LFS file is checked against). */
  readonly gitOid: string;
}

export interface Pick {
  /** The model's files in order (every part of a split model). */
  readonly files: readonly RepoFile[];
  readonly mmproj: RepoFile | null;
  /** The quant the name carries (Q4_K_M, …), or null. */
  readonly quant: string | null;
}

export type PickResult = Pick | { readonly error: string; readonly available: readonly string[] };

const EXCLUDED = ['mmproj', 'imatrix', 'mtp-', 'eagle3-'];
const DEFAULT_TAGS = ['Q4_K_M', 'Q8_0'];
const QUANT_IN_NAME = /(?:^|[-_.])((?:I?Q\d+(?:_[A-Z0-9]+)*)|(?:B?F16)|(?:F32))(?=[-_.])/i;

const isGguf = (path: string) => path.toLowerCase().endsWith('.gguf');
const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The quant a file name carries, upper-cased (Q4_K_M, IQ2_XS, BF16), or null. */
export function quantOf(path: string): string | null {
  return QUANT_IN_NAME.exec(nameOf(path))?.[1]?.toUpperCase() ?? null;
}

/** The models a repo offers by quant (one line per model, the first part of a split one). */
export function candidates(files: readonly RepoFile[]): RepoFile[] {
  return files.filter((f) => {
    const lower = nameOf(f.path).toLowerCase();
    if (!isGguf(f.path) || EXCLUDED.some((word) => lower.includes(word))) return false;
    const split = splitPartOf(f.path);
    return !split || split.part === 1;
  });
}

export function pickFiles(files: readonly RepoFile[], wanted: { quant?: string; file?: string }): PickResult {
  const models = candidates(files);
  const available = models.map((f) => f.path);
  let first: RepoFile | undefined;
  if (wanted.file) {
    first = files.find((f) => f.path === wanted.file);
    if (!first) return { error: `the repo has no file ${wanted.file}`, available };
    const split = splitPartOf(first.path);
    if (split && split.part !== 1) return { error: `${wanted.file} is part ${split.part} of ${split.of}; pull part 1 (every part comes with it)`, available };
  } else {
    const tags = wanted.quant ? [wanted.quant] : DEFAULT_TAGS;
    for (const tag of tags) {
      const match = new RegExp(`${escape(tag)}[.-]`, 'i');
      first = models.find((f) => match.test(nameOf(f.path)));
      if (first) break;
    }
    if (!first && !wanted.quant) first = models[0];
    if (!first) return { error: wanted.quant ? `no GGUF in the repo matches the quant ${wanted.quant}` : 'the repo has no GGUF model file', available };
  }
  const parts = splitParts(first, files);
  if ('error' in parts) return { error: parts.error, available };
  return { files: parts, mmproj: isGguf(first.path) ? mmprojFor(first, files) : null, quant: quantOf(first.path) };
}

function splitParts(first: RepoFile, files: readonly RepoFile[]): RepoFile[] | { error: string } {
  const split = splitPartOf(first.path);
  if (!split) return [first];
  const dir = first.path.slice(0, first.path.length - nameOf(first.path).length);
  const parts: RepoFile[] = [];
  for (let n = 1; n <= split.of; n++) {
    const path = `${dir}${splitPartName(first.path, n, split.of)}`;
    const part = files.find((f) => f.path === path);
    if (!part) return { error: `split model ${first.path} is missing part ${n} of ${split.of} (${path}) in the repo` };
    parts.push(part);
  }
  return parts;
}

/** The mmproj in the deepest folder the model shares with it, closest in bits to the model's quant. */
function mmprojFor(model: RepoFile, files: readonly RepoFile[]): RepoFile | null {
  const projectors = files.filter((f) => isGguf(f.path) && /mmproj/i.test(nameOf(f.path)));
  if (projectors.length === 0) return null;
  const depth = (f: RepoFile) => sharedDepth(model.path, f.path);
  const deepest = Math.max(...projectors.map(depth));
  const near = projectors.filter((f) => depth(f) === deepest);
  const bits = bitsOf(quantOf(model.path));
  return near.sort((a, b) => Math.abs(bitsOf(quantOf(a.path)) - bits) - Math.abs(bitsOf(quantOf(b.path)) - bits))[0] ?? null;
}

function sharedDepth(a: string, b: string): number {
  const da = a.split('/').slice(0, -1);
  const db = b.split('/').slice(0, -1);
  let n = 0;
  while (n < da.length && n < db.length && da[n] === db[n]) n++;
  return n;
}

function bitsOf(quant: string | null): number {
  if (!quant) return 16;
  const digits = /(\d+)/.exec(quant);
  return digits ? Number(digits[1]) : 16;
}
