// The profiles a gateway knows, as the running configuration has them: the seeds (read-only)
// and the user's, in profiles.toml, each shown with the slot types it serves and the slots
// that use it; how a name is looked up, and when a new one is free.
import { ConfigError, SvcError } from '../protocol/errors.js';
import type { ProfilePayload } from '../protocol/profiles.js';
import type { ResolvedConfig } from './load.js';
import { profileProblems, seedImmutable } from './profile-store.js';
import { profileServes, SEED_PROFILES } from './profiles.js';
import type { Profile } from './schema/profiles.js';
import { own } from '../lib/own.js';

type Config = Pick<ResolvedConfig, 'profiles' | 'slots'>;

/** The slots whose [slot].profile names `name`. */
export function profileUsers(config: Pick<ResolvedConfig, 'slots'>, name: string): string[] {
  return config.slots.filter((s) => s.config.slot.profile === name).map((s) => s.name);
}

export function profileView(config: Config, name: string, profile: Profile, seed: boolean): ProfilePayload {
  return { name, seed, ...profile, serves: profileServes(profile), used_by: profileUsers(config, name) };
}

/** The seeds, then the user's profiles. */
export function allProfiles(config: Config): ProfilePayload[] {
  return [
    ...Object.entries(SEED_PROFILES).map(([name, p]) => profileView(config, name, p, true)),
    ...Object.entries(config.profiles.profiles).map(([name, p]) => profileView(config, name, p, false)),
  ];
}

/** The profile `name` names, seed or user's, or profiles.not_found listing the known names. */
export function findProfile(config: Config, name: string): ProfilePayload {
  const all = allProfiles(config);
  const found = all.find((p) => p.name === name);
  if (!found) throw new SvcError('profiles.not_found', `no profile named ${name}: not a seed profile and not in profiles.toml`, { profile: name, known: all.map((p) => p.name) });
  return found;
}

/** A user profile, the one kind that may change: a seed is refused, an unknown name is not found. */
export function userProfile(config: Config, name: string): Profile {
  if (Object.hasOwn(SEED_PROFILES, name)) throw seedImmutable(name);
  const found = own(config.profiles.profiles, name);
  if (!found) findProfile(config, name);
  return found!;
}

/** Refuse a name a new profile cannot take: a seed's or an existing profile's. */
export function refuseTakenProfileName(config: Config, name: string): void {
  if (allProfiles(config).some((p) => p.name === name)) throw new SvcError('profiles.exists', `a profile named ${name} exists${Object.hasOwn(SEED_PROFILES, name) ? ' (a seed)' : ''}; pick another name`, { profile: name });
}

/** A profile that passes the rules beyond its schema, or config.invalid naming each field. */
export function checkedProfile(name: string, profile: Profile): Profile {
  const problems = profileProblems(name, profile);
  if (problems.length > 0) throw new ConfigError('config.invalid', `profile ${name}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: problems.map(({ file, path, message }) => ({ file, path, message })) });
  return profile;
}
