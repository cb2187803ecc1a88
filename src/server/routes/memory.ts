// /api/memory/* (docs/api.md "Memory", docs/memory.md). Thin: bodies are checked with the zod
// schemas of protocol/memory.ts, the caller's identity comes from X-Svc-Agent / X-Svc-Private
// (memory/identity.ts), and the memory service (ctx.memory) does the work. The identity is
// checked before the body, so an invalid agent id is always memory.agent_id_invalid.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { identityFromHeaders } from '../../memory/identity.js';
import {
  MEMORY_LIST_DEFAULT_LIMIT, MemoryAddRequestSchema, MemoryDeleteRequestSchema, MemoryRecallRequestSchema, MemorySearchRequestSchema,
  MemoryUnifyRequestSchema, MemoryHindsightMigrateRequestSchema,
} from '../../protocol/memory.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { actorOf, objectBody, queryProblem, queryValue } from '../request.js';
import { registerMemoryBankRoutes } from './memory-banks.js';

const identity = (request: FastifyRequest) => identityFromHeaders(request.headers);

function limitQuery(request: FastifyRequest): number {
  const value = queryValue(request, 'limit');
  if (value === undefined) return MEMORY_LIST_DEFAULT_LIMIT;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 500) return queryProblem('limit', `expected an integer from 1 to 500; got ${JSON.stringify(value)}`);
  return Number(value);
}

export function registerMemoryRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // After the last request ended (app.close() waits for them): the store closes, and with it
  // the embedded database process stops cleanly.
  app.addHook('onClose', async () => ctx.memory.close());

  // On the hindsight engine a bank's sub-routes that svc serves itself on pgvector (memories,
  // documents, tags, export, import, …) are the daemon's: each is passed through its
  // allowlist (docs/memory.md "Hindsight"); stats stays svc's view. Registered before the
  // routes, so it covers them all.
  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route?.startsWith('/api/memory/banks/:id/') || route.endsWith('/*') || route === '/api/memory/banks/:id/stats') return;
    if (ctx.config.svc.memory.engine !== 'hindsight' || !ctx.config.svc.memory.enabled) return;
    const { id } = request.params as { id: string };
    const [path, query = ''] = request.url.split('?', 2) as [string, string?];
    const rest = path.split('/').slice(5).join('/');
    const answer = await ctx.memoryBanks.passthrough(request.method, id, rest, query, request.body);
    return reply.code(answer.status).send(answer.body);
  });

  app.post('/api/memory/add', async (request) => {
    const who = identity(request);
    return ctx.memory.add(who, parseRequest(MemoryAddRequestSchema, objectBody(request)), actorOf(request));
  });

  app.post('/api/memory/search', async (request) => {
    const who = identity(request);
    return ctx.memory.search(who, parseRequest(MemorySearchRequestSchema, objectBody(request)));
  });

  app.post('/api/memory/recall', async (request) => {
    const who = identity(request);
    return ctx.memory.recall(who, parseRequest(MemoryRecallRequestSchema, objectBody(request)));
  });

  app.get('/api/memory/list', async (request) => {
    const who = identity(request);
    const dataset = queryValue(request, 'dataset');
    const bank = queryValue(request, 'bank');
    const cursor = queryValue(request, 'cursor');
    return ctx.memory.list(who, { dataset, bank, cursor, limit: limitQuery(request) });
  });

  app.post('/api/memory/delete', async (request) => {
    const who = identity(request);
    return ctx.memory.delete(who, parseRequest(MemoryDeleteRequestSchema, objectBody(request)), actorOf(request));
  });

  registerMemoryBankRoutes(app, ctx);

  app.get('/api/memory/engine', async () => ctx.memoryBanks.engine());

  // svc memory migrate unify: source banks copied into a target; a dry-run unless `apply`.
  app.post('/api/memory/migrate/unify', async (request) => {
    const answer = await ctx.memoryBanks.unify.run(parseRequest(MemoryUnifyRequestSchema, objectBody(request)), actorOf(request));
    if (!answer.dry_run && answer.totals.added + answer.totals.replaced > 0) answer.graph_queued = await ctx.memoryGraph.queueCopied(actorOf(request));
    return answer;
  });
  // svc memory migrate --from hindsight: the daemon's banks into the pgvector store; a dry-run unless `apply`.
  app.post('/api/memory/migrate/hindsight', async (request) => {
    const answer = await ctx.memoryBanks.fromHindsight.run(parseRequest(MemoryHindsightMigrateRequestSchema, objectBody(request)), actorOf(request));
    if (!answer.dry_run && answer.totals.added > 0) answer.graph_queued = await ctx.memoryGraph.queueCopied(actorOf(request));
    return answer;
  });

  // The hindsight engine (docs/memory.md): promote out of degraded mode, and the per-bank
  // passthrough. Its daemon is probed at boot, in the background (serve.ts, bootProbe).
  app.post('/api/memory/promote', async () => ctx.memory.promote());

  const passthrough = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id, '*': rest } = request.params as { id: string; '*': string };
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const answer = await ctx.memoryBanks.passthrough(request.method, id, rest, query, request.body);
    return reply.code(answer.status).send(answer.body);
  };
  app.get('/api/memory/banks/:id/*', passthrough);
  app.route({ method: ['POST', 'PUT', 'PATCH', 'DELETE'], url: '/api/memory/banks/:id/*', handler: passthrough });
}
