// /api/profiles: the 12 seed profiles (read-only) and the user's, in profiles.toml, which
// these routes create, update, clone and delete (src/slots/profile-service.ts). A profile's
// flags and image reach an engine, so host-only ones (files, hosts, code, a new image) are
// kept to this host or an admin (profile-input-check.ts, server/host-authority.ts, docs/auth.md).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CloneProfileRequestSchema, CreateProfileRequestSchema, UpdateProfileRequestSchema, type ProfileChangePayload } from '../../protocol/profiles.js';
import { parseRequest } from '../../protocol/validate.js';
import { ProfileService, type ProfileWriteCheck } from '../../slots/profile-service.js';
import { actorOf, booleanQuery, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { profileHostOnlyKeys } from '../profile-input-check.js';

const nameOf = (request: FastifyRequest) => (request.params as { name: string }).name;

export function registerProfileRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const profiles = new ProfileService(ctx);
  const check = (request: FastifyRequest, action: string): ProfileWriteCheck => ({ name, before, after }) =>
    requireHostAuthority(ctx, request, action, name, profileHostOnlyKeys(ctx, name, before, after), `profile ${name} would set engine input that names a file, a host, code or an image`);

  app.get('/api/profiles', async () => ({ profiles: profiles.list() }));
  app.get('/api/profiles/:name', async (request) => profiles.show(nameOf(request)));

  app.post('/api/profiles', async (request, reply) => {
    const { name, ...fields } = parseRequest(CreateProfileRequestSchema, objectBody(request));
    const created = await profiles.create(name, fields, actorOf(request), check(request, 'profile.create'));
    reply.code(201);
    return created;
  });

  app.post('/api/profiles/:name/clone', async (request, reply) => {
    const { name } = parseRequest(CloneProfileRequestSchema, objectBody(request));
    const cloned = await profiles.clone(nameOf(request), name, actorOf(request), check(request, 'profile.clone'));
    reply.code(201);
    return cloned;
  });

  app.put('/api/profiles/:name', async (request): Promise<ProfileChangePayload> => {
    const patch = parseRequest(UpdateProfileRequestSchema, objectBody(request));
    return profiles.update(nameOf(request), patch, { restart: booleanQuery(request, 'restart'), actor: actorOf(request), check: check(request, 'profile.update') });
  });

  app.delete('/api/profiles/:name', async (request) => profiles.remove(nameOf(request), booleanQuery(request, 'force'), actorOf(request)));
}
