// GET /api/profiles: the seed profiles and profiles.toml, read-only for now (editing comes
// with profile management).
import type { FastifyInstance } from 'fastify';
import { profileServes, SEED_PROFILES } from '../../config/profiles.js';
import type { Profile } from '../../config/schema/profiles.js';
import { SvcError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';

export interface ProfilePayload extends Profile {
  name: string;
  /** Seed profiles are built in and immutable. */
  seed: boolean;
  /** Slot types the profile serves (derived from its flags and class). */
  serves: readonly string[];
}

function describe(name: string, profile: Profile, seed: boolean): ProfilePayload {
  return { name, seed, ...profile, serves: profileServes(profile) };
}

export function registerProfileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const all = (): ProfilePayload[] => [
    ...Object.entries(SEED_PROFILES).map(([name, p]) => describe(name, p, true)),
    ...Object.entries(ctx.config.profiles.profiles).map(([name, p]) => describe(name, p, false)),
  ];

  app.get('/api/profiles', async () => ({ profiles: all() }));

  app.get('/api/profiles/:name', async (request) => {
    const { name } = request.params as { name: string };
    const found = all().find((p) => p.name === name);
    if (!found) throw new SvcError('profile.not_found', `no profile named ${name}: not a seed profile and not in profiles.toml`, { profile: name, known: all().map((p) => p.name) });
    return found;
  });
}
