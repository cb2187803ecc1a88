// Discovery: walk the model roots (and the store) for files with a model extension.
// Projector sidecars (`*mmproj*`) are never models; they attach to the models in their
// directory. Parts 2..n of a split model belong to part 1. Nothing here writes: the
// service decides what to add to the registry.
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { inspectModelFile } from './inspect.js';
import { deriveModelId, isMmprojName, matchExtension, splitPartOf } from './names.js';

/** The [models] settings a scan needs (ResolvedConfig['svc']['models']). */
export interface ModelsSettings {
  readonly roots: readonly string[];
  readonly store: string;
  readonly file_extensions: readonly string[];
}

export interface DiscoveredModel {
  /** The id derived from the file name (deriveModelId); the service makes it unique. */
  readonly id: string;
  readonly path: string;
  readonly files: string[];
  readonly size_bytes: number;
  readonly mmproj: string | null;
  readonly context_length: number | null;
  readonly tags: string[];
  readonly warnings: string[];
}

export interface ScanOutcome {
  readonly roots: string[];
  /** Roots that do not exist or are not directories (not an error: nothing to find there). */
  readonly missing_roots: string[];
  readonly models: DiscoveredModel[];
  /** Projector sidecars found; attached to the models beside them, never registered. */
  readonly sidecars: string[];
  /** Candidate files that are not models on their own, with the reason. */
  readonly skipped: Array<{ path: string; reason: string }>;
}

/** Directories deeper than this under a root are not walked. */
const MAX_DEPTH = 8;

/** The directories a scan walks: every root, then the store when it is not one of them. */
export function scanRoots(settings: Pick<ModelsSettings, 'roots' | 'store'>): string[] {
  const all = [...settings.roots, ...(settings.store ? [settings.store] : [])].map((r) => resolve(r));
  return [...new Set(all)];
}

interface Candidate {
  readonly path: string;
  readonly size: number;
  readonly extension: string;
}

/** Every file with a model extension under the roots, each real file once (links, nested roots). */
async function findCandidates(roots: readonly string[], extensions: readonly string[]): Promise<{ missingRoots: string[]; candidates: Candidate[] }> {
  const missingRoots: string[] = [];
  const candidates: Candidate[] = [];
  const seenFiles = new Set<string>();
  const seenDirs = new Set<string>();

  const walk = async (dir: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      return;
    }
    if (seenDirs.has(real)) return; // a symlink loop, or a root inside another root
    seenDirs.add(real);
    let names: string[];
    try {
      names = (await readdir(dir)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue; // hidden files, and <store>/.tmp where pulls write
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info) continue;
      if (info.isDirectory()) {
        if (depth < MAX_DEPTH) await walk(path, depth + 1);
        continue;
      }
      const extension = info.isFile() ? matchExtension(name, extensions) : undefined;
      if (!extension) continue;
      const realFile = await realpath(path).catch(() => path);
      if (seenFiles.has(realFile)) continue;
      seenFiles.add(realFile);
      candidates.push({ path, size: info.size, extension });
    }
  };

  for (const root of roots) {
    const info = await stat(root).catch(() => undefined);
    if (!info?.isDirectory()) {
      missingRoots.push(root);
      continue;
    }
    await walk(root, 0);
  }
  return { missingRoots, candidates };
}

type Sorted = Pick<ScanOutcome, 'models' | 'sidecars' | 'skipped'>;

/** Each candidate a model, a sidecar or skipped with its reason; later split parts go with part 1. */
async function sortCandidates(candidates: readonly Candidate[], extensions: readonly string[]): Promise<Sorted> {
  const sorted: Sorted = { models: [], sidecars: [], skipped: [] };
  for (const { path, size, extension } of candidates) {
    if (isMmprojName(path)) {
      sorted.sidecars.push(path);
      continue;
    }
    const split = splitPartOf(path);
    if (split && split.part > 1) continue; // counted with part 1 (or reported by orphanParts when part 1 is missing)
    const facts = await inspectModelFile(path, size, extensions);
    if (facts.missing_parts.length > 0) {
      sorted.skipped.push({ path, reason: `split model with missing parts: ${facts.missing_parts.join(', ')}` });
      continue;
    }
    // An engine would crash-loop on it; `svc model register --force` takes it on purpose.
    if (facts.not_gguf) {
      sorted.skipped.push({ path, reason: `not a GGUF file: ${facts.not_gguf.found}` });
      continue;
    }
    sorted.models.push({
      id: deriveModelId(path, extension),
      path,
      files: facts.files,
      size_bytes: facts.size_bytes,
      mmproj: facts.mmproj,
      context_length: facts.context_length,
      tags: facts.tags,
      warnings: facts.warnings,
    });
  }
  return sorted;
}

/** Later parts whose part 1 is not there: not loadable on their own. */
function orphanParts(candidates: readonly Candidate[]): Array<{ path: string; reason: string }> {
  const splitKey = (path: string, prefix: string, of: number) => `${dirname(path)}\0${prefix}\0${of}`;
  const firstParts = new Set(candidates.flatMap(({ path }) => {
    const split = splitPartOf(path);
    return split?.part === 1 ? [splitKey(path, split.prefix, split.of)] : [];
  }));
  return candidates.flatMap(({ path }) => {
    const split = splitPartOf(path);
    if (!split || split.part === 1 || isMmprojName(path) || firstParts.has(splitKey(path, split.prefix, split.of))) return [];
    return [{ path, reason: `part ${split.part} of ${split.of} of a split model whose first part is missing` }];
  });
}

export async function scanModelRoots(roots: readonly string[], extensions: readonly string[]): Promise<ScanOutcome> {
  const { missingRoots, candidates } = await findCandidates(roots, extensions);
  const { models, sidecars, skipped } = await sortCandidates(candidates, extensions);
  return { roots: [...roots], missing_roots: missingRoots, models, sidecars, skipped: [...skipped, ...orphanParts(candidates)] };
}
