// /api/stacks: the three built-in stacks (read-only) and the user's, in stacks.toml: list,
// show, create, replace, delete, export as a portable envelope, import one, snapshot the live
// slots, apply one (?dry_run=true: the plan only) and say which is active. The work is in
// src/stacks/service.ts (ctx.stacks); here requests are read and authorised: engine input only
// the host may set is refused before anything is written (stack-input-check.ts for a stack,
// engine-input-check.ts for the slot files an apply writes).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CreateStackRequestSchema, SnapshotStackRequestSchema, type StackActivePayload, type StackApplyPayload, type StackImportPayload } from '../../protocol/stacks.js';
import { parseRequest } from '../../protocol/validate.js';
import type { StackChangeCheck } from '../../stacks/apply.js';
import type { StackWriteCheck } from '../../stacks/service.js';
import { actorOf, booleanQuery, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { slotHostOnlyKeys } from '../engine-input-check.js';
import { requireHostAuthority } from '../host-authority.js';
import { stackHostOnlyKeys } from '../stack-input-check.js';
import { importRequestOf } from './stack-import-request.js';

const slugOf = (request: FastifyRequest) => (request.params as { slug: string }).slug;

export function registerStackRoutes(app: FastifyInstance, ctx: ServerContext): void {
  /** A stack written over HTTP (and the profiles an import brings) may not name files, hosts, code or images unless the host asks. */
  const stackCheck = (request: FastifyRequest, action: string): StackWriteCheck => ({ slug, before, after, incoming }) =>
    requireHostAuthority(ctx, request, action, slug, stackHostOnlyKeys(ctx, slug, before, after, incoming), `stack ${slug} would give slots engine input that names a file, a host, code or an image`);
  /** The same for the slot files an apply would write, asked inside the writer queue. */
  const applyCheck = (request: FastifyRequest, slug: string): StackChangeCheck => async (changes) => {
    const keys = changes.flatMap(({ slot, before, after }) => slotHostOnlyKeys(ctx, slot, before, after));
    await requireHostAuthority(ctx, request, 'stack.apply', slug, keys, `stack ${slug} would give slots engine input that names a file, a host or code`);
  };

  app.get('/api/stacks', async () => ({ stacks: ctx.stacks.list() }));

  app.post('/api/stacks/:slug/apply', async (request): Promise<StackApplyPayload> => {
    const slug = slugOf(request);
    return ctx.stacks.apply(slug, { dryRun: booleanQuery(request, 'dry_run'), pull: booleanQuery(request, 'pull'), actor: actorOf(request), check: applyCheck(request, slug) });
  });

  app.get('/api/stacks/active', async (): Promise<StackActivePayload> => ctx.stacks.active());

  app.get('/api/stacks/:slug', async (request) => ctx.stacks.show(slugOf(request)));

  app.post('/api/stacks', async (request, reply) => {
    const { slug, ...body } = parseRequest(CreateStackRequestSchema, objectBody(request));
    const created = await ctx.stacks.create(slug, body, actorOf(request), stackCheck(request, 'stack.create'));
    reply.code(201);
    return created;
  });

  app.put('/api/stacks/:slug', async (request) => {
    const slug = slugOf(request);
    return ctx.stacks.replace(slug, objectBody(request), actorOf(request), stackCheck(request, 'stack.update'));
  });

  app.delete('/api/stacks/:slug', async (request) => ctx.stacks.remove(slugOf(request), actorOf(request)));

  app.post('/api/stacks/snapshot', async (request, reply) => {
    const body = parseRequest(SnapshotStackRequestSchema, objectBody(request));
    const snapshot = await ctx.stacks.snapshot(body, actorOf(request));
    reply.code(201);
    return snapshot;
  });

  app.get('/api/stacks/:slug/export', async (request, reply) => {
    const slug = slugOf(request);
    const envelope = ctx.stacks.exportStack(slug);
    reply.header('content-disposition', `attachment; filename="${slug}.svcstack.json"`);
    return envelope;
  });

  app.post('/api/stacks/import', async (request, reply): Promise<StackImportPayload> => {
    const imported = await ctx.stacks.importStack(importRequestOf(request), actorOf(request), stackCheck(request, 'stack.import'));
    reply.code(201);
    return imported;
  });
}
