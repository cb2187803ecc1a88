// profiles.toml written by the API: create, update, clone and delete user profiles. Each
// change reads the file, changes its raw document, validates the whole file and writes it
// atomically; seeds never change. The rules a profile must meet beyond its schema (flags a
// slot supplies itself, a coherent device class and backend) live here, pure.
import { ownedFlagsIn, ownedFlagsMessage } from '../protocol/host-only.js';
import { ConfigError, SvcError } from '../protocol/errors.js';
import { writeFileAtomic } from './atomic.js';
import type { SvcPaths } from './paths.js';
import { errorsOf, formatProblem, type ConfigProblem } from './problems.js';
import { SEED_PROFILES } from './profiles.js';
import { ProfileSchema, ProfilesFileSchema, type Profile, type ProfilesFile } from './schema/profiles.js';
import { tokenize } from '../lib/shell-words.js';
import { readTomlFile, stringifyToml, type TomlDoc } from './toml.js';
import { validateDocument } from './validate.js';
import { join } from 'node:path';
import { own } from '../lib/own.js';

/** Flags a slot supplies from its own keys: a profile carrying them would fight the slot. */
export const SLOT_SUPPLIED_FLAGS: Readonly<Record<string, string>> = {
  '-m': 'the model ([model].default)', '--model': 'the model ([model].default)', '--mmproj': 'the projector (the registry\'s mmproj)',
  '-c': 'the context ([model].context_size)', '--ctx-size': 'the context ([model].context_size)', '--alias': 'the model id',
};

export const profilesTomlOf = (paths: Pick<SvcPaths, 'configRoot'>) => join(paths.configRoot, 'profiles.toml');

/** Problems with one profile beyond its schema, each at `profiles.<name>.<field>`. */
export function profileProblems(name: string, profile: Profile): ConfigProblem[] {
  const at = (field: string) => `profiles.${name}.${field}`;
  const problem = (path: string, message: string): ConfigProblem => ({ file: 'profiles.toml', path, message, severity: 'error' });
  const problems: ConfigProblem[] = [];
  let tokens: string[] = [];
  try {
    tokens = tokenize(profile.flags);
  } catch (error) {
    problems.push(problem(at('flags'), `cannot split into arguments: ${(error as Error).message}`));
  }
  const owned = ownedFlagsIn(tokens);
  if (owned.length > 0) problems.push(problem(at('flags'), ownedFlagsMessage(owned)));
  for (const token of tokens) {
    const flag = token.includes('=') ? token.slice(0, token.indexOf('=')) : token;
    const what = own(SLOT_SUPPLIED_FLAGS, flag);
    if (what && !owned.includes(flag)) problems.push(problem(at('flags'), `${flag} is supplied by the slot (${what}); remove it from the profile`));
  }
  if (profile.device_class === 'gpu' && profile.backend === null) problems.push(problem(at('backend'), 'a gpu profile names its backend: rocm, vulkan or cuda'));
  if (profile.device_class !== 'gpu' && profile.backend !== null) problems.push(problem(at('backend'), `a ${profile.device_class} profile has no GPU backend; set backend to null or device_class to gpu`));
  return problems;
}

export function seedImmutable(name: string): SvcError {
  return new SvcError('profiles.seed_immutable', `"${name}" is a seed profile and cannot be changed; clone it (POST /api/profiles/${name}/clone, svc profile clone ${name} <new-name>) and change the clone`, { profile: name });
}

/**
 * Put (or, with null, remove) `[profiles.<name>]` and write the file; returns the new file.
 * The caller holds the one-writer queue.
 */
export async function writeProfile(paths: Pick<SvcPaths, 'configRoot'>, name: string, profile: Profile | null): Promise<ProfilesFile> {
  if (Object.hasOwn(SEED_PROFILES, name)) throw seedImmutable(name);
  const file = profilesTomlOf(paths);
  const read = await readTomlFile(file, 'profiles.toml');
  if (read.status === 'invalid') throw invalid([read.problem]);
  const doc: TomlDoc = read.status === 'ok' ? read.doc : {};
  const profiles = { ...((doc.profiles as TomlDoc | undefined) ?? {}) };
  if (profile === null) delete profiles[name];
  else profiles[name] = withoutDefaults(profile);
  const next = { ...doc, profiles };
  const checked = validateDocument(ProfilesFileSchema, next, 'profiles.toml');
  const problems = [...errorsOf(checked.problems), ...(profile ? profileProblems(name, profile) : [])];
  if (!checked.value || problems.length > 0) throw invalid(problems);
  await writeFileAtomic(file, stringifyToml(next));
  return checked.value;
}

/** Only the keys that differ from the schema's defaults, so the file stays short. */
function withoutDefaults(profile: Profile): TomlDoc {
  const defaults = ProfileSchema.parse({ image: '', device_class: profile.device_class });
  const out: TomlDoc = {};
  for (const [key, value] of Object.entries(profile)) {
    if (key === 'image' || key === 'device_class' || JSON.stringify(value) !== JSON.stringify((defaults as Record<string, unknown>)[key])) out[key] = value as TomlDoc[string];
  }
  return out;
}

function invalid(problems: readonly ConfigProblem[]): ConfigError {
  return new ConfigError('config.invalid', `profiles.toml not changed: ${problems.map(formatProblem).join('; ')}`, {
    problems: problems.map(({ file, path, message }) => ({ file, path, message })),
  });
}
