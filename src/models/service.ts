// The model registry's operations: list and show, register, remove, assign to a slot, and
// the roots scan. Each mutation reads registry.toml (or the slot file) from disk, changes
// it, validates and writes it atomically, and returns the new registry for the caller to
// swap into the running config. Callers serialise mutations (one writer per home).
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ResolvedConfig } from '../config/load.js';
import { formatProblem } from '../config/problems.js';
import { MODEL_ID_PATTERN, MODEL_ID_RULE, type ModelEntry, type RegistryFile } from '../config/schema/registry.js';
import type { SlotFile } from '../config/schema/slot.js';
import { slotFilePath, updateSlotFile } from '../config/slot-files.js';
import { readTomlFile } from '../config/toml.js';
import { ConfigError, ModelError, SlotError } from '../protocol/errors.js';
import type { ModelPayload, ScanModelsPayload } from '../protocol/models.js';
import { inspectModelFile } from './inspect.js';
import { isMmprojName, matchExtension, splitPartOf, uniqueId } from './names.js';
import { scanModelRoots, scanRoots } from './scan.js';
import { deleteEntry, excludeFromScan, includeInScan, putEntry, readRegistry, writeRegistry } from './store.js';
import { own } from '../lib/own.js';

/** A registry entry as the API shows it. */
export type ModelView = ModelPayload;

type Config = Pick<ResolvedConfig, 'paths' | 'svc' | 'slots' | 'registry'>;

/** Slots whose `[model].default` is `id`, by name. */
export function slotsUsing(config: Pick<ResolvedConfig, 'slots'>, id: string): string[] {
  return config.slots.filter((s) => s.config.model.default === id).map((s) => s.name);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

export async function viewModel(config: Config, id: string, entry: ModelEntry): Promise<ModelView> {
  return {
    id,
    name: entry.name,
    path: entry.path,
    files: [...entry.files],
    size_bytes: entry.size_bytes,
    license: entry.license,
    source: entry.source,
    tags: [...entry.tags],
    capabilities: [...entry.capabilities],
    backends: [...entry.backends],
    mmproj: entry.mmproj,
    context_length: entry.metadata.context_length,
    sha256: entry.metadata.sha256,
    commit: entry.metadata.commit,
    architecture: entry.metadata.architecture,
    quant: entry.metadata.quant,
    hf_repo: entry.hf_repo,
    hf_filename: entry.hf_filename,
    defaults: { ...entry.defaults },
    used_by: slotsUsing(config, id),
    present: await isFile(entry.path),
  };
}

/** Every entry, sorted by id. */
export async function listModels(config: Config): Promise<ModelView[]> {
  const ids = Object.keys(config.registry.models).sort();
  return Promise.all(ids.map((id) => viewModel(config, id, config.registry.models[id]!)));
}

/**
 * The id a reference names: an exact id, else the one entry whose display name equals it
 * (ignoring case). Anything else is model.not_found.
 */
export function resolveModelRef(registry: RegistryFile, ref: string): string {
  if (Object.hasOwn(registry.models, ref)) return ref;
  const byName = Object.entries(registry.models).filter(([, e]) => e.name !== '' && e.name.toLowerCase() === ref.toLowerCase()).map(([id]) => id);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    throw new ModelError('model.not_found', `"${ref}" is the name of several models (${byName.join(', ')}); use the id`, { ref, candidates: byName });
  }
  const near = Object.keys(registry.models).filter((id) => id.toLowerCase().includes(ref.toLowerCase())).slice(0, 5);
  throw new ModelError('model.not_found', `no model "${ref}" in the registry${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`, { ref, near });
}

export interface RegisterInput {
  path: string;
  name?: string;
  license?: string;
  /** Register a `.gguf` file that does not start with the GGUF magic (for an engine that takes another format). */
  force?: boolean;
}

export interface RegisterResult {
  registry: RegistryFile;
  id: string;
  /** false when the id was already registered for the same file and has been refreshed. */
  created: boolean;
  warnings: string[];
}

/**
 * Add a model file to the registry under `id`. The path must be absolute and a regular file
 * with one of `[models].file_extensions`; it may not be an mmproj sidecar or part 2..n of a
 * split model; a `.gguf` file must start with the GGUF magic unless forced. An id registered
 * for the same file is refreshed (size, context length, sidecar; name and license when
 * given); for another file it is model.already_exists.
 */
export async function registerModel(config: Config, id: string, input: RegisterInput): Promise<RegisterResult> {
  if (!MODEL_ID_PATTERN.test(id)) throw new ModelError('model.invalid_id', `invalid model id ${JSON.stringify(id)}: expected ${MODEL_ID_RULE}`, { id });
  const given = input.path;
  if (!isAbsolute(given)) {
    throw new ModelError('model.path_relative', `path must be absolute; got ${JSON.stringify(given)}`, { path: given });
  }
  const path = resolve(given);
  const extensions = config.svc.models.file_extensions;
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ModelError('model.path_missing', `path does not exist: ${path}`, { path });
  if (!info.isFile()) throw new ModelError('model.unsupported_format', `path is not a regular file: ${path}`, { path });
  if (!matchExtension(path, extensions)) {
    throw new ModelError('model.unsupported_format', `path ${path} does not end in a model extension ([models].file_extensions: ${extensions.join(', ')})`, { path, file_extensions: [...extensions] });
  }
  if (isMmprojName(path)) {
    throw new ModelError('model.unsupported_format', `${path} is a multimodal projector (mmproj) sidecar, not a model; it is attached to the models in its directory`, { path });
  }
  const split = splitPartOf(path);
  if (split && split.part > 1) {
    throw new ModelError('model.unsupported_format', `${path} is part ${split.part} of ${split.of} of a split model; register the first part`, { path });
  }

  const { doc, registry } = await readRegistry(config.paths);
  const existing = own(registry.models, id);
  if (existing && resolve(existing.path) !== path) {
    throw new ModelError('model.already_exists', `model "${id}" is already registered for ${existing.path}`, { id, path: existing.path });
  }
  const facts = await inspectModelFile(path, info.size, extensions);
  if (facts.not_gguf && !input.force) {
    throw new ModelError('model.unsupported_format', `${path} is not a GGUF file: ${facts.not_gguf.found}; an engine would fail to load it ("invalid GGUF magic"). Register the finished .gguf download, or pass force (svc model register --force) for an engine that takes another format`, {
      path, found: facts.not_gguf.found, first_bytes: facts.not_gguf.first_bytes,
    });
  }
  if (facts.missing_parts.length > 0) {
    throw new ModelError('model.path_missing', `split model ${path} is missing ${facts.missing_parts.length} part(s): ${facts.missing_parts.join(', ')}`, { path: facts.missing_parts[0], missing: facts.missing_parts });
  }
  putEntry(doc, id, {
    name: input.name,
    path,
    files: facts.files,
    size_bytes: facts.size_bytes,
    license: input.license,
    source: existing?.source === 'pull' ? 'pull' : 'registered',
    tags: facts.tags,
    mmproj: facts.mmproj,
    context_length: facts.context_length,
  });
  includeInScan(doc, path);
  return { registry: await writeRegistry(config.paths, doc), id, created: !existing, warnings: facts.warnings };
}

export interface RemoveResult {
  registry: RegistryFile;
  id: string;
  path: string;
  /** Slots that still name the model (only when forced). */
  used_by: string[];
}

/**
 * Remove an entry (never the file). Refused with model.in_use while a slot's
 * `[model].default` names it, unless forced. A file under a scanned root is added to
 * `scan_exclude` so the next scan does not bring it back.
 */
export async function removeModel(config: Config, ref: string, options: { force?: boolean } = {}): Promise<RemoveResult> {
  const { doc, registry } = await readRegistry(config.paths);
  const id = resolveModelRef(registry, ref);
  const entry = registry.models[id]!;
  const usedBy = slotsUsing(config, id);
  if (usedBy.length > 0 && !options.force) {
    throw new ModelError('model.in_use', `model "${id}" is the default model of slot(s) ${usedBy.join(', ')}; assign them another model first, or remove it anyway with force (svc model rm --force)`, { model: id, slots: usedBy });
  }
  deleteEntry(doc, id);
  if (underAny(entry.path, scanRoots(config.svc.models))) excludeFromScan(doc, resolve(entry.path));
  return { registry: await writeRegistry(config.paths, doc), id, path: entry.path, used_by: usedBy };
}

function underAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, resolve(path));
    return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
  });
}

export interface AssignResult {
  id: string;
  slot: string;
  /** The slot's previous `[model].default` ('' when none). */
  before: string;
  /** The slot's previous `[model].path`, cleared by the assignment; null when none was set. */
  cleared_path: string | null;
  config: SlotFile;
}

/**
 * Make `ref` the default model of an existing slot: `[model].default = id` in its slot file,
 * every other key kept. A `[model].path` (which would win over the default) is removed.
 * Nothing is loaded.
 */
export async function assignModel(config: Config, ref: string, slot: string): Promise<AssignResult> {
  const id = resolveModelRef(config.registry, ref);
  const file = slotFilePath(config.paths, slot);
  if (!file || !(await isFile(file))) throw new SlotError('slot.not_found', `no slot "${slot}"`, { slot });
  const read = await readTomlFile(file, `slots/${slot}.toml`);
  const previous = read.status === 'ok' && typeof read.doc.model === 'object' && read.doc.model !== null ? (read.doc.model as Record<string, unknown>) : {};
  const result = await updateSlotFile(config.paths, slot, { model: { default: id, path: null } });
  if (!result.ok) {
    throw new ConfigError('config.invalid', `slots/${slot}.toml not changed: ${result.problems.map(formatProblem).join('; ')}`, {
      problems: result.problems.map(({ file: f, path, message }) => ({ file: f, path, message })),
    });
  }
  return {
    id,
    slot,
    before: typeof previous.default === 'string' ? previous.default : '',
    cleared_path: typeof previous.path === 'string' ? previous.path : null,
    config: result.config,
  };
}

export interface ScanResult extends ScanModelsPayload {
  registry: RegistryFile;
  /** Whether registry.toml was written (only when something was added). */
  written: boolean;
}

/**
 * Walk the roots and the store and add every model file no entry points at yet, with
 * source "scan" and an id derived from the file name (made unique with -2, -3, …).
 * Existing entries are never changed.
 */
export async function scanModels(config: Config): Promise<ScanResult> {
  const roots = scanRoots(config.svc.models);
  const outcome = await scanModelRoots(roots, config.svc.models.file_extensions);
  const { doc, registry } = await readRegistry(config.paths);
  const known = new Set(Object.values(registry.models).map((e) => resolve(e.path)));
  // A symlink to a registered file (`svc migrate model-layout` makes them in the store) is that file, not a new model.
  const real = (path: string) => realpath(path).catch(() => resolve(path));
  for (const entry of Object.values(registry.models)) known.add(await real(entry.path));
  const excluded = new Set(registry.scan_exclude.map((p) => resolve(p)));
  const ids = new Set(Object.keys(registry.models));
  const added: ScanResult['added'] = [];
  const warnings: string[] = [];
  let alreadyRegistered = 0;
  let excludedCount = 0;
  for (const model of outcome.models) {
    const path = resolve(model.path);
    if (known.has(path) || known.has(await real(path))) {
      alreadyRegistered++;
      continue;
    }
    if (excluded.has(path)) {
      excludedCount++;
      continue;
    }
    const id = uniqueId(model.id, (candidate) => ids.has(candidate));
    ids.add(id);
    known.add(path);
    putEntry(doc, id, {
      path,
      files: model.files,
      size_bytes: model.size_bytes,
      source: 'scan',
      tags: model.tags,
      mmproj: model.mmproj,
      context_length: model.context_length,
    });
    added.push({ id, path, mmproj: model.mmproj });
    warnings.push(...model.warnings.map((w) => `${path}: ${w}`));
  }
  const written = added.length > 0;
  return {
    registry: written ? await writeRegistry(config.paths, doc) : registry,
    roots,
    missing_roots: outcome.missing_roots,
    found: outcome.models.length,
    added,
    already_registered: alreadyRegistered,
    excluded: excludedCount,
    sidecars: outcome.sidecars,
    skipped: outcome.skipped,
    warnings,
    written,
  };
}

/** The one-line summary the server logs after a scan. */
export function scanSummaryLine(result: ScanResult): string {
  const parts = [
    `${result.found} model file(s) under ${result.roots.length} root(s)`,
    `${result.added.length} added${result.added.length ? ` (${result.added.map((a) => a.id).join(', ')})` : ''}`,
    `${result.already_registered} already registered`,
  ];
  if (result.excluded) parts.push(`${result.excluded} excluded`);
  if (result.sidecars.length) parts.push(`${result.sidecars.length} mmproj sidecar(s)`);
  if (result.skipped.length) parts.push(`${result.skipped.length} skipped`);
  if (result.missing_roots.length) parts.push(`missing root(s): ${result.missing_roots.join(', ')}`);
  return `models: scan found ${parts.join(', ')}`;
}
