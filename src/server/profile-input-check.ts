// The host-only policy for profiles written over HTTP (create, update, clone): a profile's
// flags and image reach an engine, so what a change adds that names a file, a host, code or a
// new image is judged in the dialect of its engine, together with what it adds to each slot
// that uses the profile (docs/auth.md, "Host-only keys").
import { SEED_PROFILES } from '../config/profiles.js';
import type { Profile } from '../config/schema/profiles.js';
import { hostOnlyProfileChanges, hostOnlySlotChanges } from '../engines/engine-input.js';
import type { ServerContext } from './context.js';

/** Host-only keys a profile change adds, as "profiles.<name> ..." and "slots.<slot> ...". */
export function profileHostOnlyKeys(ctx: ServerContext, name: string, before: Profile | undefined, after: Profile): string[] {
  const knownImages = new Set([...Object.values(SEED_PROFILES), ...Object.values(ctx.config.profiles.profiles)].map((p) => p.image));
  const slots = ctx.config.slots.filter((s) => s.config.slot.profile === name).flatMap((s) => {
    const input = { provider: s.config.slot.provider, extraArgs: s.config.server.extra_args, env: s.config.server.env };
    return hostOnlySlotChanges({ ...input, profile: before ?? null }, { ...input, profile: after }).map((key) => `slots.${s.name} ${key}`);
  });
  return [...new Set([...hostOnlyProfileChanges(name, before, after, knownImages), ...slots])];
}
