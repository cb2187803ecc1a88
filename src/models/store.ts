// registry.toml on disk: read it, change its raw document, validate, write it atomically.
// Changes go into the raw document rather than a re-serialised typed value, so entries
// keep only the keys they had (defaults stay implicit). Callers serialise writes (the
// server's one-writer queue).
import { writeFileAtomic } from '../config/atomic.js';
import type { SvcPaths } from '../config/paths.js';
import { errorsOf, formatProblem } from '../config/problems.js';
import { RegistryFileSchema, type ModelSource, type RegistryFile } from '../config/schema/registry.js';
import { readTomlFile, stringifyToml, type TomlDoc } from '../config/toml.js';
import { validateDocument } from '../config/validate.js';
import { ConfigError } from '../protocol/errors.js';

export interface RegistryDocument {
  /** The file as parsed; change this and pass it to writeRegistry. */
  readonly doc: TomlDoc;
  /** The same, validated, with defaults filled in. */
  readonly registry: RegistryFile;
}

const isTable = (v: unknown): v is TomlDoc => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

function invalid(paths: SvcPaths, problems: ReturnType<typeof errorsOf>): ConfigError {
  return new ConfigError('config.invalid', `${paths.registryToml} is invalid: ${problems.map(formatProblem).join('; ')}`, {
    problems: problems.map(({ file, path, message }) => ({ file, path, message })),
  });
}

/** Read registry.toml; a missing file is an empty registry. An invalid one is a config.invalid error. */
export async function readRegistry(paths: SvcPaths): Promise<RegistryDocument> {
  const label = paths.registryToml;
  const read = await readTomlFile(paths.registryToml, label);
  if (read.status === 'invalid') throw invalid(paths, [read.problem]);
  const doc = read.status === 'ok' ? read.doc : {};
  const result = validateDocument(RegistryFileSchema, doc, label);
  if (!result.value) throw invalid(paths, errorsOf(result.problems));
  return { doc, registry: result.value };
}

/** Validate a changed document and write it atomically; returns the validated registry. */
export async function writeRegistry(paths: SvcPaths, doc: TomlDoc): Promise<RegistryFile> {
  const result = validateDocument(RegistryFileSchema, doc, paths.registryToml);
  if (!result.value) throw invalid(paths, errorsOf(result.problems));
  await writeFileAtomic(paths.registryToml, stringifyToml(doc));
  return result.value;
}

/** The `[models]` table of a document, created when absent. */
export function modelsTable(doc: TomlDoc): TomlDoc {
  if (!isTable(doc.models)) doc.models = {};
  return doc.models as TomlDoc;
}

/** What svc itself writes for an entry it creates or refreshes. */
export interface EntryFacts {
  readonly name?: string;
  readonly path: string;
  readonly files: readonly string[];
  readonly size_bytes: number;
  readonly license?: string;
  readonly source: ModelSource;
  readonly tags: readonly string[];
  readonly mmproj: string | null;
  readonly context_length: number | null;
}

/**
 * Put an entry into the document. An existing entry keeps every key svc does not set here
 * (capabilities, defaults, hf_repo, …); tags are added to, never taken away.
 */
export function putEntry(doc: TomlDoc, id: string, facts: EntryFacts): void {
  const models = modelsTable(doc);
  const entry: TomlDoc = isTable(models[id]) ? { ...(models[id] as TomlDoc) } : {};
  if (facts.name !== undefined) entry.name = facts.name;
  entry.path = facts.path;
  if (facts.files.length > 0) entry.files = [...facts.files];
  else delete entry.files;
  entry.size_bytes = facts.size_bytes;
  if (facts.license !== undefined) entry.license = facts.license;
  entry.source = facts.source;
  const tags = new Set([...(Array.isArray(entry.tags) ? (entry.tags as unknown[]).map(String) : []), ...facts.tags]);
  if (tags.size > 0) entry.tags = [...tags];
  if (facts.mmproj) entry.mmproj = facts.mmproj;
  else delete entry.mmproj;
  const metadata: TomlDoc = isTable(entry.metadata) ? { ...(entry.metadata as TomlDoc) } : {};
  if (facts.context_length !== null) metadata.context_length = facts.context_length;
  if (Object.keys(metadata).length > 0) entry.metadata = metadata;
  models[id] = entry;
}

export function deleteEntry(doc: TomlDoc, id: string): void {
  delete modelsTable(doc)[id];
}

/** Add a path to `scan_exclude` (no duplicates). */
export function excludeFromScan(doc: TomlDoc, path: string): void {
  const list = Array.isArray(doc.scan_exclude) ? (doc.scan_exclude as unknown[]).map(String) : [];
  if (!list.includes(path)) doc.scan_exclude = [...list, path];
}

/** Take a path out of `scan_exclude`; the key goes when the list empties. */
export function includeInScan(doc: TomlDoc, path: string): void {
  if (!Array.isArray(doc.scan_exclude)) return;
  const list = (doc.scan_exclude as unknown[]).map(String).filter((p) => p !== path);
  if (list.length > 0) doc.scan_exclude = list;
  else delete doc.scan_exclude;
}
