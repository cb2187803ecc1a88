// /api/stacks: the three built-in stacks (read-only) and the user's, in stacks.toml: list,
// show, create, replace, delete, export as a portable envelope, import one, and snapshot the
// live slots. Apply and the active stack are in stack-apply.ts.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PullManager } from '../../models/pull/jobs.js';
import { withProfiles, withStacks } from '../../config/load.js';
import { writeProfile } from '../../config/profile-store.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { ProfileSchema, type Profile } from '../../config/schema/profiles.js';
import { StackSchema, type Stack } from '../../config/schema/stacks.js';
import { SEED_STACKS } from '../../config/seed-stacks.js';
import { stackSeedImmutable, writeStack } from '../../config/stack-store.js';
import { validateDocument } from '../../config/validate.js';
import { SvcError } from '../../protocol/errors.js';
import { CreateStackRequestSchema, SnapshotStackRequestSchema, STACK_ENVELOPE_KIND, STACK_ENVELOPE_VERSION, type StackImportPayload, type StackModelReport, type StackPayload } from '../../protocol/stacks.js';
import { parseRequest } from '../../protocol/validate.js';
import { canonicalJson } from '../../protocol/canonical-json.js';
import { actorOf, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { stackHostOnlyKeys } from '../stack-input-check.js';
import { registerStackApplyRoutes } from './stack-apply.js';
import { importRequestOf } from './stack-import-request.js';

/** Slugs the stack routes use as path segments. */
const RESERVED_SLUGS = new Set(['active', 'import', 'snapshot']);

const checksumOf = (body: unknown) => `sha256:${createHash('sha256').update(canonicalJson(body)).digest('hex')}`;

function parseStack(value: unknown, label: string): Stack {
  const result = validateDocument(StackSchema, value, label);
  if (!result.value) throw new SvcError('stacks.bad_envelope', `${label} is not a valid stack: ${result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: result.problems.map(({ path, message }) => ({ path, message })) });
  return result.value;
}

export function registerStackRoutes(app: FastifyInstance, ctx: ServerContext, pulls: () => Promise<PullManager>): void {
  const view = (slug: string, stack: Stack, seed: boolean): StackPayload => ({ slug, seed, ...JSON.parse(JSON.stringify(stack)) });
  const all = (): StackPayload[] => [
    ...Object.entries(SEED_STACKS).map(([slug, s]) => view(slug, s, true)),
    ...Object.entries(ctx.config.stacks.stack).map(([slug, s]) => view(slug, s, false)),
  ];
  const find = (slug: string): { stack: Stack; seed: boolean } => {
    if (Object.hasOwn(SEED_STACKS, slug)) return { stack: SEED_STACKS[slug]!, seed: true };
    const stack = ctx.config.stacks.stack[slug];
    if (!stack) throw new SvcError('stacks.not_found', `no stack ${slug}: not built in and not in stacks.toml`, { stack: slug, known: all().map((s) => s.slug) });
    return { stack, seed: false };
  };
  const mustBeNew = (slug: string) => {
    if (RESERVED_SLUGS.has(slug)) throw new SvcError('stacks.invalid_name', `"${slug}" is a word the stack routes use; pick another slug`, { stack: slug, reserved: [...RESERVED_SLUGS] });
    if (Object.hasOwn(SEED_STACKS, slug) || ctx.config.stacks.stack[slug]) throw new SvcError('stacks.exists', `a stack ${slug} exists; pick another slug`, { stack: slug });
  };
  const save = async (request: FastifyRequest, action: string, slug: string, stack: Stack | null) => {
    try {
      await ctx.configWrites.run(async () => ctx.replaceConfig(withStacks(ctx.config, await writeStack(ctx.paths, slug, stack))));
    } catch (error) {
      if (error instanceof SvcError) ctx.record({ action, target: slug, actor: actorOf(request), outcome: 'error', message: error.message, details: { code: error.code } });
      throw error;
    }
    ctx.record({ action, target: slug, actor: actorOf(request), details: stack ? { slots: stack.slots.map((r) => r.slot) } : {} });
    const type = stack === null ? 'stack.deleted' : action === 'stack.update' ? 'stack.updated' : 'stack.created';
    ctx.events.publish({ type, source: 'stacks', message: `stack ${slug} ${type.split('.')[1]}`, data: { stack: slug } });
  };

  /** Engine input only the host may set (server/stack-input-check.ts), refused before anything is written. */
  const guard = async (request: FastifyRequest, action: string, slug: string, before: Stack | undefined, after: Stack, incoming: Record<string, Profile> = {}) =>
    requireHostAuthority(ctx, request, action, slug, stackHostOnlyKeys(ctx, slug, before, after, incoming), `stack ${slug} would give slots engine input that names a file, a host, code or an image`);

  app.get('/api/stacks', async () => ({ stacks: all() }));
  registerStackApplyRoutes(app, ctx, find, pulls);
  app.get('/api/stacks/:slug', async (request) => {
    const { slug } = request.params as { slug: string };
    const { stack, seed } = find(slug);
    return view(slug, stack, seed);
  });

  app.post('/api/stacks', async (request, reply) => {
    const { slug, ...body } = parseRequest(CreateStackRequestSchema, objectBody(request));
    mustBeNew(slug);
    const stack = parseStack(body, `stack ${slug}`);
    await guard(request, 'stack.create', slug, undefined, stack);
    await save(request, 'stack.create', slug, stack);
    reply.code(201);
    return view(slug, stack, false);
  });

  app.put('/api/stacks/:slug', async (request) => {
    const { slug } = request.params as { slug: string };
    const { stack: before, seed } = find(slug);
    if (seed) throw stackSeedImmutable(slug);
    const stack = parseStack(objectBody(request), `stack ${slug}`);
    await guard(request, 'stack.update', slug, before, stack);
    await save(request, 'stack.update', slug, stack);
    return view(slug, stack, false);
  });

  app.delete('/api/stacks/:slug', async (request) => {
    const { slug } = request.params as { slug: string };
    if (find(slug).seed) throw stackSeedImmutable(slug);
    await save(request, 'stack.delete', slug, null);
    return { deleted: slug };
  });

  app.post('/api/stacks/snapshot', async (request, reply) => {
    const body = parseRequest(SnapshotStackRequestSchema, objectBody(request));
    mustBeNew(body.slug);
    const slots = ctx.config.slots.filter((s) => s.config.slot.enabled).map((s) => ({
      slot: s.name, model: s.config.model.default || 'unset', profile: s.config.slot.profile, device: s.config.slot.device, provider: s.config.slot.provider, role: s.config.slot.role,
      ...(s.config.server.extra_args ? { server_extra_args: s.config.server.extra_args } : {}),
    }));
    const stack = parseStack({ name: body.name ?? body.slug, description: body.description ?? `snapshot of ${slots.length} slot(s), ${new Date().toISOString()}`, author: actorOf(request), slots }, `snapshot ${body.slug}`);
    await save(request, 'stack.snapshot', body.slug, stack);
    reply.code(201);
    return view(body.slug, stack, false);
  });

  app.get('/api/stacks/:slug/export', async (request, reply) => {
    const { slug } = request.params as { slug: string };
    const { stack } = find(slug);
    const profiles: Record<string, Profile> = {};
    for (const row of stack.slots) {
      const name = row.profile;
      if (name && !Object.hasOwn(SEED_PROFILES, name) && ctx.config.profiles.profiles[name]) profiles[name] = ctx.config.profiles.profiles[name]!;
    }
    const models: Record<string, unknown> = {};
    for (const id of modelIds(stack)) {
      const entry = ctx.config.registry.models[id];
      if (entry) models[id] = { id, name: entry.name, hf_repo: entry.hf_repo, hf_filename: entry.hf_filename, size_bytes: entry.size_bytes, quant: entry.metadata.quant, capabilities: entry.capabilities, backends: entry.backends, mmproj: entry.mmproj ? 'present' : null };
    }
    const body = { slug, ...JSON.parse(JSON.stringify(stack)), profiles, models };
    reply.header('content-disposition', `attachment; filename="${slug}.svcstack.json"`);
    return { kind: STACK_ENVELOPE_KIND, schema_version: STACK_ENVELOPE_VERSION, svc_version: ctx.version, exported_at: new Date().toISOString(), checksum: checksumOf(body), stack: body };
  });

  app.post('/api/stacks/import', async (request, reply): Promise<StackImportPayload> => {
    const { envelope, slug: asSlug } = importRequestOf(request);
    const env = envelope as { kind?: unknown; schema_version?: unknown; checksum?: unknown; stack?: Record<string, unknown> } | null;
    if (!env || typeof env !== 'object' || env.kind !== STACK_ENVELOPE_KIND || typeof env.stack !== 'object' || env.stack === null) {
      throw new SvcError('stacks.bad_envelope', `not a stack envelope: expected {kind: "${STACK_ENVELOPE_KIND}", schema_version, checksum, stack}`, {});
    }
    if (typeof env.schema_version !== 'number' || env.schema_version > STACK_ENVELOPE_VERSION) {
      throw new SvcError('stacks.envelope_too_new', `the envelope's schema_version ${String(env.schema_version)} is newer than this svc reads (${STACK_ENVELOPE_VERSION}); upgrade svc`, { schema_version: env.schema_version });
    }
    if (env.checksum !== checksumOf(env.stack)) throw new SvcError('stacks.bad_envelope', 'the envelope\'s checksum does not match its stack: it was changed after export', { checksum: env.checksum });
    const { slug: exported, profiles = {}, models = {}, ...rest } = env.stack as { slug?: string; profiles?: Record<string, unknown>; models?: Record<string, unknown> };
    const slug = asSlug ?? String(exported ?? '');
    if (!/^[a-z0-9][a-z0-9_-]{0,31}$/.test(slug)) throw new SvcError('stacks.bad_envelope', 'the envelope names no valid slug; pass one', { slug });
    mustBeNew(slug);
    const stack = parseStack(rest, `envelope stack ${slug}`);
    const incoming = Object.entries(profiles as Record<string, unknown>).map(([name, value]) => [name, ProfileSchema.safeParse(value)] as const);
    const bad = incoming.find(([, parsed]) => !parsed.success);
    if (bad) throw new SvcError('stacks.bad_envelope', `the envelope's profile ${bad[0]} is not valid`, { profile: bad[0] });
    const added = incoming.filter(([name]) => !Object.hasOwn(SEED_PROFILES, name) && !ctx.config.profiles.profiles[name]).map(([name, parsed]) => [name, parsed.data!] as const);
    await guard(request, 'stack.import', slug, undefined, stack, Object.fromEntries(added));
    for (const [name, profile] of added) {
      await ctx.configWrites.run(async () => ctx.replaceConfig(withProfiles(ctx.config, await writeProfile(ctx.paths, name, profile))));
    }
    await save(request, 'stack.import', slug, stack);
    const report = async (id: string): Promise<StackModelReport> => {
      const entry = ctx.config.registry.models[id];
      const carried = (models as Record<string, { hf_repo?: unknown }>)[id];
      if (entry && (await stat(entry.path).then((s) => s.isFile(), () => false))) return { id, status: 'present' };
      return { id, status: entry?.hf_repo || carried?.hf_repo ? 'pullable' : 'unresolvable' };
    };
    reply.code(201);
    return { stack: view(slug, stack, false), profiles_added: added.map(([name]) => name), profiles_kept: incoming.map(([name]) => name).filter((n) => !added.some(([a]) => a === n)), models: await Promise.all(modelIds(stack).map(report)) };
  });
}

function modelIds(stack: Stack): string[] {
  return [...new Set(stack.slots.flatMap((row) => [row.model, ...row.capabilities.map((c) => c.model)]))];
}
