// /api/profiles: the 12 seed profiles (read-only) and the user's, in profiles.toml, which
// these routes create, update, clone and delete. Writes go through the one-writer queue,
// swap the new file into the running config, and are an activity row and an event. A
// profile's flags and image reach an engine, so host-only ones (files, hosts, code, a new
// image) are kept to this host or an admin (server/host-authority.ts, docs/auth.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withProfiles } from '../../config/load.js';
import { profileProblems, seedImmutable, writeProfile } from '../../config/profile-store.js';
import { profileServes, SEED_PROFILES } from '../../config/profiles.js';
import { ProfileSchema, type Profile } from '../../config/schema/profiles.js';
import { ConfigError, SvcError } from '../../protocol/errors.js';
import { hostOnlyProfileChanges, hostOnlySlotChanges } from '../../engines/engine-input.js';
import { CloneProfileRequestSchema, CreateProfileRequestSchema, UpdateProfileRequestSchema, type ProfileChangePayload, type ProfilePayload } from '../../protocol/profiles.js';
import { parseRequest } from '../../protocol/validate.js';
import { actorOf, booleanQuery, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';

const RUNNING = new Set(['starting', 'warming', 'ready']);

export function registerProfileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const usedBy = (name: string) => ctx.config.slots.filter((s) => s.config.slot.profile === name).map((s) => s.name);
  const describe = (name: string, profile: Profile, seed: boolean): ProfilePayload => ({ name, seed, ...profile, serves: profileServes(profile), used_by: usedBy(name) });
  const all = (): ProfilePayload[] => [
    ...Object.entries(SEED_PROFILES).map(([name, p]) => describe(name, p, true)),
    ...Object.entries(ctx.config.profiles.profiles).map(([name, p]) => describe(name, p, false)),
  ];
  const find = (name: string): ProfilePayload => {
    const found = all().find((p) => p.name === name);
    if (!found) throw new SvcError('profiles.not_found', `no profile named ${name}: not a seed profile and not in profiles.toml`, { profile: name, known: all().map((p) => p.name) });
    return found;
  };
  const userProfile = (name: string): Profile => {
    if (Object.hasOwn(SEED_PROFILES, name)) throw seedImmutable(name);
    const found = ctx.config.profiles.profiles[name];
    if (!found) find(name);
    return found!;
  };
  const mustBeNew = (name: string) => {
    if (all().some((p) => p.name === name)) throw new SvcError('profiles.exists', `a profile named ${name} exists${Object.hasOwn(SEED_PROFILES, name) ? ' (a seed)' : ''}; pick another name`, { profile: name });
  };
  const knownImages = () => new Set([...Object.values(SEED_PROFILES), ...Object.values(ctx.config.profiles.profiles)].map((p) => p.image));
  /**
   * Host-only engine input a profile change adds (docs/auth.md): flags judged the way its
   * engine reads them, a new image, and what it adds to each slot that uses the profile.
   */
  const guard = async (request: FastifyRequest, action: string, name: string, before: Profile | undefined, after: Profile) => {
    const slots = ctx.config.slots.filter((s) => s.config.slot.profile === name).flatMap((s) => {
      const input = { provider: s.config.slot.provider, extraArgs: s.config.server.extra_args, env: s.config.server.env };
      return hostOnlySlotChanges({ ...input, profile: before ?? null }, { ...input, profile: after }).map((key) => `slots.${s.name} ${key}`);
    });
    const keys = [...new Set([...hostOnlyProfileChanges(name, before, after, knownImages()), ...slots])];
    await requireHostAuthority(ctx, request, action, name, keys, `profile ${name} would set engine input that names a file, a host, code or an image`);
  };
  const write = async (request: FastifyRequest, action: string, name: string, profile: Profile | null) => {
    try {
      return await ctx.configWrites.run(async () => {
        const profiles = await writeProfile(ctx.paths, name, profile);
        ctx.replaceConfig(withProfiles(ctx.config, profiles));
      });
    } catch (error) {
      if (error instanceof SvcError) ctx.record({ action, target: name, actor: actorOf(request), outcome: 'error', message: error.message, details: { code: error.code, ...error.details } });
      throw error;
    }
  };

  app.get('/api/profiles', async () => ({ profiles: all() }));
  app.get('/api/profiles/:name', async (request) => find((request.params as { name: string }).name));

  app.post('/api/profiles', async (request, reply) => {
    const { name, ...fields } = parseRequest(CreateProfileRequestSchema, objectBody(request));
    mustBeNew(name);
    const profile = checked(name, ProfileSchema.parse(fields));
    await guard(request, 'profile.create', name, undefined, profile);
    await write(request, 'profile.create', name, profile);
    ctx.record({ action: 'profile.create', target: name, actor: actorOf(request), details: { ...profile } });
    ctx.events.publish({ type: 'profile.created', source: 'profiles', message: `profile ${name} created`, data: { profile: name, cloned_from: null } });
    reply.code(201);
    return find(name);
  });

  app.post('/api/profiles/:name/clone', async (request, reply) => {
    const { name: source } = request.params as { name: string };
    const { name } = parseRequest(CloneProfileRequestSchema, objectBody(request));
    const original = find(source);
    mustBeNew(name);
    const { name: _name, seed: _seed, serves: _serves, used_by: _used, ...fields } = original;
    await guard(request, 'profile.clone', name, fields, { ...fields, cloned_from: source });
    await write(request, 'profile.clone', name, { ...fields, cloned_from: source });
    ctx.record({ action: 'profile.clone', target: name, actor: actorOf(request), details: { cloned_from: source } });
    ctx.events.publish({ type: 'profile.created', source: 'profiles', message: `profile ${name} cloned from ${source}`, data: { profile: name, cloned_from: source } });
    reply.code(201);
    return find(name);
  });

  app.put('/api/profiles/:name', async (request): Promise<ProfileChangePayload> => {
    const { name } = request.params as { name: string };
    const body = parseRequest(UpdateProfileRequestSchema, objectBody(request));
    const before = userProfile(name);
    const profile = checked(name, { ...before, ...body });
    await guard(request, 'profile.update', name, before, profile);
    await write(request, 'profile.update', name, profile);
    const slots = usedBy(name);
    const restarted: string[] = [];
    if (booleanQuery(request, 'restart')) {
      for (const slot of slots) {
        if (!RUNNING.has(ctx.supervisor.view(slot).state)) continue;
        await ctx.supervisor.restart(slot);
        restarted.push(slot);
      }
    }
    const changed = Object.keys(body);
    ctx.record({ action: 'profile.update', target: name, actor: actorOf(request), details: { keys: changed, slots, restarted } });
    ctx.events.publish({ type: 'profile.updated', source: 'profiles', message: `profile ${name} updated (${changed.join(', ')})${slots.length ? `; used by ${slots.join(', ')}` : ''}`, data: { profile: name, slots, restarted } });
    return { profile: find(name), slots, restarted };
  });

  app.delete('/api/profiles/:name', async (request) => {
    const { name } = request.params as { name: string };
    userProfile(name);
    const force = booleanQuery(request, 'force');
    const slots = usedBy(name);
    if (slots.length > 0 && !force) {
      throw new SvcError('profiles.in_use', `profile ${name} is used by slot(s) ${slots.join(', ')}; point them at another profile first, or delete it anyway with force (svc profile delete --force)`, { profile: name, slots });
    }
    await write(request, 'profile.delete', name, null);
    ctx.record({ action: 'profile.delete', target: name, actor: actorOf(request), details: { slots, force } });
    ctx.events.publish({ type: 'profile.deleted', source: 'profiles', message: `profile ${name} deleted`, data: { profile: name, slots, force } });
    return { deleted: name, slots };
  });
}

/** A profile that passes the rules beyond its schema, or request.invalid naming each field. */
function checked(name: string, profile: Profile): Profile {
  const problems = profileProblems(name, profile);
  if (problems.length > 0) throw new ConfigError('config.invalid', `profile ${name}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: problems.map(({ file, path, message }) => ({ file, path, message })) });
  return profile;
}
