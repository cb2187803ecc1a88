// Load every configuration file, validate it, and resolve it into one frozen ResolvedConfig.
// All problems of all files are collected in one pass; any error means no config at all,
// so a server never starts (or reloads) with a half-valid configuration.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import type { EnvSettings } from './env.js';
import { readEnv } from './env.js';
import { migrateDocument } from './migrate.js';
import type { SvcPaths } from './paths.js';
import type { ConfigProblem } from './problems.js';
import { errorsOf } from './problems.js';
import type { RawSlotFile } from './rules.js';
import { SEED_PROFILES } from './profiles.js';
import { profileRules, slotFileRules, slotReferenceRules, slotSetRules, svcTomlRules, tokenRules } from './rules.js';
import { CapabilitiesFileSchema, type CapabilitiesFile } from './schema/capabilities.js';
import { ProfilesFileSchema, type ProfilesFile } from './schema/profiles.js';
import { RegistryFileSchema, type RegistryFile } from './schema/registry.js';
import { PeersFileSchema, type PeersFile } from './schema/peers.js';
import { ProvidersFileSchema, UpstreamsFileSchema, type ProvidersFile, type UpstreamsFile } from './schema/remote.js';
import { SlotFileSchema, type SlotFile } from './schema/slot.js';
import { StacksFileSchema, type StacksFile } from './schema/stacks.js';
import { SvcTomlSchema, type SvcToml } from './schema/svc-toml.js';
import { readEnvFile } from './env-file.js';
import { replicaGroupRules } from './group-rules.js';
import { TokensFileSchema, type TokensFile } from './schema/tokens.js';
import type { TomlDoc } from './toml.js';
import { parseToml, readTomlFile } from './toml.js';
import { validateDocument, type Validated } from './validate.js';

export interface SlotEntry {
  readonly name: string;
  /** Path relative to the config root, e.g. slots/chat.toml. */
  readonly file: string;
  readonly config: SlotFile;
}

export interface ResolvedConfig {
  readonly paths: SvcPaths;
  readonly env: EnvSettings;
  /** svc.toml with defaults filled and environment overrides applied. */
  readonly svc: SvcToml & { readonly models: SvcToml['models'] & { readonly roots: string[] } };
  readonly slots: readonly SlotEntry[];
  readonly profiles: ProfilesFile;
  readonly providers: ProvidersFile;
  readonly upstreams: UpstreamsFile;
  readonly peers: PeersFile;
  readonly capabilities: CapabilitiesFile;
  readonly stacks: StacksFile;
  readonly tokens: TokensFile;
  readonly registry: RegistryFile;
  readonly warnings: readonly ConfigProblem[];
}

export type LoadOutcome =
  | { readonly ok: true; readonly config: ResolvedConfig; readonly problems: readonly ConfigProblem[] }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

/** The optional catalogue files under the config root, each with its schema. */
const CATALOGUES = {
  profiles: { file: 'profiles.toml', schema: ProfilesFileSchema },
  providers: { file: 'providers.toml', schema: ProvidersFileSchema },
  upstreams: { file: 'upstreams.toml', schema: UpstreamsFileSchema },
  peers: { file: 'peers.toml', schema: PeersFileSchema },
  capabilities: { file: 'capabilities.toml', schema: CapabilitiesFileSchema },
  stacks: { file: 'stacks.toml', schema: StacksFileSchema },
  tokens: { file: 'tokens.toml', schema: TokensFileSchema },
} as const;

/** Validate a raw svc.toml document: migrate in memory, check the schema and the cross-field rules. */
export function validateSvcToml(raw: TomlDoc, file = 'svc.toml'): Validated<SvcToml> & { migratedFrom?: number } {
  const migrated = migrateDocument(raw);
  const result = validateDocument(SvcTomlSchema, migrated.doc, file);
  const problems = [...result.problems, ...svcTomlRules(migrated.doc, file)];
  if (migrated.changes.length > 0) {
    problems.push({
      file,
      path: 'meta.schema_version',
      message: `written for schema_version ${migrated.from}; run \`svc config migrate\` to update it (${migrated.changes.join('; ')})`,
      severity: 'warning',
    });
  }
  return errorsOf(problems).length > 0 ? { problems } : { value: result.value, problems, migratedFrom: migrated.from };
}

/** Config-root files a user may edit by name; anything else (and any traversal) is refused. */
export const EDITABLE_FILE_PATTERN = /^(svc|profiles|providers|upstreams|peers|capabilities|stacks|tokens)\.toml$|^slots\/[a-z0-9][a-z0-9_-]{0,31}\.toml$/;

/**
 * Validate one file's text on its own: syntax, schema and the rules inside the file. Rules
 * across files (two slots on one port) need loadConfig.
 */
export function validateFileText(file: string, text: string): ConfigProblem[] {
  const parsed = parseToml(text, file);
  if ('problem' in parsed) return [parsed.problem];
  if (file === 'svc.toml') return validateSvcToml(parsed.doc, file).problems;
  if (file.startsWith('slots/')) {
    const stem = file.slice('slots/'.length, -'.toml'.length);
    return [...validateDocument(SlotFileSchema, parsed.doc, file).problems, ...slotFileRules({ file, stem, doc: parsed.doc })];
  }
  const catalogue = Object.values(CATALOGUES).find((c) => c.file === file);
  if (!catalogue) return [{ file, path: '', message: 'not a configuration file svc knows', severity: 'error' }];
  const problems = validateDocument(catalogue.schema as z.ZodType, parsed.doc, file).problems;
  return file === 'tokens.toml' ? [...problems, ...tokenRules(parsed.doc, file)] : problems;
}

export async function loadConfig(paths: SvcPaths, envVars: NodeJS.ProcessEnv = process.env): Promise<LoadOutcome> {
  const problems: ConfigProblem[] = [];
  // api.env holds defaults (SVC_AUTH_ENABLED from `svc auth enable`); the process environment wins.
  const env = readEnv({ ...(await readEnvFile(paths.apiEnv).catch(() => ({}))), ...envVars });
  problems.push(...env.problems);

  const svc = await loadDocument(paths.svcToml, 'svc.toml', problems, (doc) => validateSvcToml(doc));
  const slots = await loadSlots(paths, problems);
  const catalogues = {} as { [K in keyof typeof CATALOGUES]: z.output<(typeof CATALOGUES)[K]['schema']> | undefined };
  for (const [name, { file, schema }] of Object.entries(CATALOGUES)) {
    const extra = name === 'tokens' ? tokenRules : undefined;
    (catalogues as Record<string, unknown>)[name] = await loadDocument(join(paths.configRoot, file), file, problems, (doc) => {
      const result = validateDocument(schema as z.ZodType, doc, file);
      return extra ? { ...result, problems: [...result.problems, ...extra(doc, file)] } : result;
    });
  }
  const registryLabel = paths.registryToml;
  const registry = await loadDocument(paths.registryToml, registryLabel, problems, (doc) => validateDocument(RegistryFileSchema, doc, registryLabel));

  const slotNames = new Set(slots.map((s) => s.name));
  problems.push(...profileRules(
    Object.keys(catalogues.profiles?.profiles ?? {}),
    Object.keys(SEED_PROFILES),
    slots.map((s) => ({ file: s.file, profile: s.config.slot.profile })),
  ));
  problems.push(
    ...slotReferenceRules('upstreams.toml', Object.entries(catalogues.upstreams?.upstreams ?? {}).map(([n, u]) => ({ path: `upstreams.${n}.slot`, slot: u.slot })), slotNames),
    ...slotReferenceRules('capabilities.toml', Object.entries(catalogues.capabilities?.capabilities ?? {}).map(([n, c]) => ({ path: `capabilities.${n}.slot`, slot: c?.slot })), slotNames),
    ...replicaGroupRules(catalogues.peers, catalogues.upstreams, slotNames),
  );

  if (errorsOf(problems).length > 0 || !svc) return { ok: false, problems };
  const config: ResolvedConfig = {
    paths,
    env: env.settings,
    svc: applyEnvOverrides(svc, env.settings, paths),
    slots,
    profiles: catalogues.profiles ?? ProfilesFileSchema.parse({}),
    providers: catalogues.providers ?? ProvidersFileSchema.parse({}),
    upstreams: catalogues.upstreams ?? UpstreamsFileSchema.parse({}),
    peers: catalogues.peers ?? PeersFileSchema.parse({}),
    capabilities: catalogues.capabilities ?? CapabilitiesFileSchema.parse({}),
    stacks: catalogues.stacks ?? StacksFileSchema.parse({}),
    tokens: catalogues.tokens ?? TokensFileSchema.parse({}),
    registry: registry ?? RegistryFileSchema.parse({}),
    warnings: problems,
  };
  return { ok: true, config: deepFreeze(config), problems };
}

/** Read and validate one TOML file; a missing file validates as an empty document. */
async function loadDocument<T>(path: string, file: string, problems: ConfigProblem[], validate: (doc: TomlDoc) => Validated<T>): Promise<T | undefined> {
  const read = await readTomlFile(path, file);
  if (read.status === 'invalid') {
    problems.push(read.problem);
    return undefined;
  }
  const result = validate(read.status === 'ok' ? read.doc : {});
  problems.push(...result.problems);
  return result.value;
}

async function loadSlots(paths: SvcPaths, problems: ConfigProblem[]): Promise<SlotEntry[]> {
  let names: string[];
  try {
    names = (await readdir(paths.slotsDir)).filter((n) => n.endsWith('.toml')).sort();
  } catch {
    return [];
  }
  const raws: RawSlotFile[] = [];
  const entries: SlotEntry[] = [];
  for (const name of names) {
    const file = `slots/${name}`;
    const read = await readTomlFile(join(paths.slotsDir, name), file);
    if (read.status === 'missing') continue;
    if (read.status === 'invalid') {
      problems.push(read.problem);
      continue;
    }
    const raw: RawSlotFile = { file, stem: name.slice(0, -'.toml'.length), doc: read.doc };
    raws.push(raw);
    const result = validateDocument(SlotFileSchema, read.doc, file);
    problems.push(...result.problems, ...slotFileRules(raw));
    if (result.value) entries.push({ name: result.value.slot.name, file, config: result.value });
  }
  problems.push(...slotSetRules(raws));
  return entries;
}

/** The running config with a new svc.toml swapped in (after a settings write). */
export function withSvcToml(config: ResolvedConfig, svc: SvcToml): ResolvedConfig {
  return deepFreeze({ ...config, svc: applyEnvOverrides(svc, config.env, config.paths) });
}

/** The running config with a new model registry swapped in (after a registry.toml write). */
export function withRegistry(config: ResolvedConfig, registry: RegistryFile): ResolvedConfig {
  return deepFreeze({ ...config, registry });
}

/** The running config with a new profiles.toml swapped in (after a profile write). */
export function withProfiles(config: ResolvedConfig, profiles: ProfilesFile): ResolvedConfig {
  return deepFreeze({ ...config, profiles });
}

/** The running config with a new stacks.toml swapped in (after a stack write). */
export function withStacks(config: ResolvedConfig, stacks: StacksFile): ResolvedConfig {
  return deepFreeze({ ...config, stacks });
}

/** The running config with one slot file's new content swapped in (after a write to an existing slot file). */
export function withSlotConfig(config: ResolvedConfig, name: string, slot: SlotFile): ResolvedConfig {
  return deepFreeze({ ...config, slots: config.slots.map((entry) => (entry.name === name ? { ...entry, config: slot } : entry)) });
}

function applyEnvOverrides(svc: SvcToml, env: EnvSettings, paths: SvcPaths): ResolvedConfig['svc'] {
  const roots = svc.models.roots ?? [paths.defaultModelsDir];
  return {
    ...svc,
    models: { ...svc.models, roots, store: env.modelStore ?? svc.models.store },
    activity: { ...svc.activity, retention_days: env.activityRetentionDays ?? svc.activity.retention_days },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
