// Settings: the svc.toml keys as the API and dashboard see them. Changes arrive as a
// partial object, are deep-merged into the file's raw document, validated as a whole and
// only then written (atomically). The schema carries each key's description and apply
// class, so the description and apply plan here are derived, never hand-kept.
import { z } from 'zod';
import { ConfigError } from '../protocol/errors.js';
import { MAX_JSON_DEPTH } from '../protocol/input-bounds.js';
import { changedHostOnlySettings, HOST_ONLY_SETTINGS } from '../protocol/host-only.js';
import { keepMaskedSecrets } from '../protocol/url-secrets.js';
import { writeFileAtomic } from './atomic.js';
import { validateSvcToml } from './load.js';
import type { SvcPaths } from './paths.js';
import type { ConfigProblem } from './problems.js';
import { errorsOf, joinPath } from './problems.js';
import type { ApplyClass, ApplyPlan, SettingDescription } from '../protocol/settings-wire.js';
import { SvcTomlSchema, type SvcToml } from './schema/svc-toml.js';
import { readTomlFile, stringifyToml, type TomlDoc } from './toml.js';

// The wire shapes live in protocol/settings-wire.ts (the dashboard reads them too).
export type { ApplyPlan, SettingDescription };

type Table = Record<string, unknown>;
const isTable = (v: unknown): v is Table => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Keys where null is a real value (not "default"); TOML has no null, so the file spells it false. */
const NULL_SPELLED_FALSE = new Set(['activity.max_rows']);

/**
 * Merge a change into a document. Tables merge key by key, anything else replaces. A null
 * removes the key (back to its default), except keys where null means something.
 */
export function deepMerge(base: Table, patch: Table, prefix: string[] = []): Table {
  const out: Table = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const path = [...prefix, key];
    if (value === null) {
      if (NULL_SPELLED_FALSE.has(path.join('.'))) out[key] = false;
      else delete out[key];
    } else if (isTable(value) && path.length < MAX_JSON_DEPTH) {
      // Past the depth a request body may have, a table replaces whatever was there (no file key is that deep).
      // Recurse even into a new table, so the null rules apply at every depth.
      out[key] = deepMerge(isTable(out[key]) ? (out[key] as Table) : {}, value, path);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Dotted paths of every leaf in a change, e.g. {slots:{max_slots:1}} -> ["slots.max_slots"]. */
export function leafPaths(value: Table, prefix: string[] = []): string[] {
  return Object.entries(value).flatMap(([key, child]) =>
    isTable(child) && Object.keys(child).length > 0 && prefix.length + 1 < MAX_JSON_DEPTH ? leafPaths(child, [...prefix, key]) : [joinPath([...prefix, key])],
  );
}

/**
 * Whether a problem's path is one of `touched`, under one, or above one: a Set of each
 * touched path and of each of its ancestors, so the test is linear in the paths, not
 * touched × problems (40,000 unknown keys made that quadratic: 16 s of a blocked event loop).
 */
export function overlapsAny(touched: readonly string[]): (path: string) => boolean {
  const exact = new Set(touched);
  const ancestors = new Set<string>();
  for (const key of touched) for (let dot = key.indexOf('.'); dot >= 0; dot = key.indexOf('.', dot + 1)) ancestors.add(key.slice(0, dot));
  return (path) => {
    if (exact.has(path) || ancestors.has(path)) return true;
    for (let dot = path.indexOf('.'); dot >= 0; dot = path.indexOf('.', dot + 1)) if (exact.has(path.slice(0, dot))) return true;
    return false;
  };
}

interface JsonNode {
  type?: string;
  properties?: Record<string, JsonNode>;
  anyOf?: JsonNode[];
  items?: JsonNode;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  description?: string;
  apply?: ApplyClass;
  unread?: boolean;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Every svc.toml key with its type, default, bounds, description and apply class. */
export function describeSettings(paths: SvcPaths): SettingDescription[] {
  const json = z.toJSONSchema(SvcTomlSchema, { io: 'input', unrepresentable: 'any' }) as JsonNode;
  const defaults = SvcTomlSchema.parse({}) as unknown as Table;
  (defaults.models as Table).roots = [paths.defaultModelsDir];
  const out: SettingDescription[] = [];
  // A section marked unread marks every key under it.
  const walk = (node: JsonNode, path: string[], unread: boolean) => {
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      const here = [...path, name];
      if (child.type === 'object' && child.properties && !child.apply) walk(child, here, unread || child.unread === true);
      else out.push(describeLeaf(child, here, defaults, unread));
    }
  };
  walk(json, [], false);
  return out;
}

function describeLeaf(node: JsonNode, path: string[], defaults: Table, sectionUnread: boolean): SettingDescription {
  const variants = node.anyOf ?? [node];
  const concrete = variants.find((v) => v.type !== 'null') ?? node;
  const type = concrete.type === 'array' ? `array<${concrete.items?.type ?? 'any'}>` : (concrete.type ?? 'any');
  let value: unknown = defaults;
  for (const segment of path) value = isTable(value) ? value[segment] : undefined;
  const description: SettingDescription = {
    key: path.join('.'),
    section: path.slice(0, -1).join('.'),
    type,
    nullable: variants.some((v) => v.type === 'null'),
    default: value ?? null,
    description: node.description ?? '',
    apply_class: node.apply ?? 'manual',
  };
  if (concrete.minimum !== undefined) description.minimum = concrete.minimum;
  if (concrete.maximum !== undefined && concrete.maximum !== MAX_SAFE) description.maximum = concrete.maximum;
  if (concrete.exclusiveMinimum !== undefined) description.exclusive_minimum = concrete.exclusiveMinimum;
  if (concrete.enum) description.enum = concrete.enum;
  if (sectionUnread || node.unread === true) description.unread = true;
  return description;
}

export function applyPlan(descriptions: readonly SettingDescription[], only?: readonly string[]): ApplyPlan {
  const plan: ApplyPlan = { keys: {}, live: [], restart: {}, manual: [] };
  const wanted = only ? descriptions.filter((d) => only.some((k) => d.key === k || d.key.startsWith(`${k}.`))) : descriptions;
  for (const { key, apply_class } of wanted) {
    plan.keys[key] = apply_class;
    if (apply_class === 'live') plan.live.push(key);
    else if (apply_class === 'manual') plan.manual.push(key);
    else (plan.restart[apply_class.slice('restart:'.length)] ??= []).push(key);
  }
  return plan;
}

export type SettingsUpdate =
  | { ok: true; before: SvcToml; after: SvcToml; changed: string[]; warnings: ConfigProblem[] }
  | { ok: false; problems: ConfigProblem[] };

/**
 * Apply a change to svc.toml: read the file fresh, merge, validate the merged result, and
 * write it atomically only when it is valid. `extraRules` adds checks that need live state. Unknown keys are errors here: a typo sent
 * through the API must not land in the file. Callers serialise updates (one writer).
 */
/**
 * `hostOnly`: whether the caller may change host-only keys (protocol/host-only.ts); when it
 * may not and the change would, config.host_only is thrown before anything is written.
 */
export async function updateSvcToml(paths: SvcPaths, patch: Table, extraRules: (merged: TomlDoc) => ConfigProblem[] = () => [], hostOnly = true): Promise<SettingsUpdate> {
  const read = await readTomlFile(paths.svcToml, 'svc.toml');
  if (read.status === 'invalid') return { ok: false, problems: [read.problem] };
  const raw: TomlDoc = read.status === 'ok' ? read.doc : {};
  const before = validateSvcToml(raw);
  // A value sent back as a read showed it (a URL's password masked) keeps the file's secret.
  patch = keepMaskedSecrets(patch, raw);
  const merged = deepMerge(raw, patch);
  const after = validateSvcToml(merged);
  const touched = leafPaths(patch);
  const overlaps = overlapsAny(touched);
  const problems = after.problems.map((p) =>
    p.path && overlaps(p.path) ? { ...p, severity: 'error' as const, message: p.message.replace('unknown key, kept but not used', 'unknown key') } : p,
  );
  // Rules that need live state run on the raw merge, so they report alongside schema errors.
  problems.push(...extraRules(merged));
  if (errorsOf(problems).length > 0 || !after.value) return { ok: false, problems: errorsOf(problems) };
  const refused = hostOnly ? [] : changedHostOnlySettings(before.value ?? SvcTomlSchema.parse({}), after.value);
  if (refused.length > 0) {
    throw new ConfigError('config.host_only', `${refused.join(', ')} can be changed over HTTP only from this host or with an admin token (they name a program, a host path or an exposure); edit svc.toml on the host or use \`svc config edit\``, {
      keys: refused,
      why: Object.fromEntries(refused.map((key) => [key, HOST_ONLY_SETTINGS[key]])),
    });
  }
  try {
    await writeFileAtomic(paths.svcToml, stringifyToml(merged));
  } catch (error) {
    throw new ConfigError('config.write_failed', `could not write ${paths.svcToml}: ${(error as Error).message}; the previous file is unchanged`, { file: paths.svcToml }, { cause: error });
  }
  return {
    ok: true,
    before: before.value ?? SvcTomlSchema.parse({}),
    after: after.value,
    changed: touched,
    warnings: problems,
  };
}
