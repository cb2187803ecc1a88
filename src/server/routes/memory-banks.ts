// /api/memory/banks/* (docs/api.md "Memory", docs/memory.md "Banks"): the bank admin routes.
// A bank's fields (PUT replaces, PATCH merges), its delete (confirmed), stats, memories,
// documents, tags, export (JSON lines) and import, and its re-embedding (a job). Thin: the
// memory layer's MemoryBanks (ctx.memoryBanks) does the work. Registered by memory.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import {
  MEMORY_IMPORT_CONFLICTS, MEMORY_LIST_DEFAULT_LIMIT, MemoryBankDeleteBodySchema, MemoryBankPatchBodySchema, MemoryBankPutBodySchema,
} from '../../protocol/memory.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { actorOf, asObject, objectBody, queryProblem, queryValue } from '../request.js';

const bankParam = (request: FastifyRequest) => (request.params as { id: string }).id;
const itemParam = (request: FastifyRequest) => (request.params as { item: string }).item;
const NDJSON = 'application/x-ndjson';

function intQuery(request: FastifyRequest, key: string, fallback: number, min: number, max: number): number {
  const value = queryValue(request, key);
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) return queryProblem(key, `expected an integer from ${min} to ${max}; got ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

const page = (request: FastifyRequest) => ({
  offset: intQuery(request, 'offset', 0, 0, 100_000_000),
  limit: intQuery(request, 'limit', MEMORY_LIST_DEFAULT_LIMIT, 1, 500),
});

function conflictQuery(request: FastifyRequest): (typeof MEMORY_IMPORT_CONFLICTS)[number] {
  const value = queryValue(request, 'on_conflict') ?? 'skip';
  if (!(MEMORY_IMPORT_CONFLICTS as readonly string[]).includes(value)) return queryProblem('on_conflict', `expected one of ${MEMORY_IMPORT_CONFLICTS.join(', ')}; got ${JSON.stringify(value.slice(0, 40))}`);
  return value as (typeof MEMORY_IMPORT_CONFLICTS)[number];
}

export function registerMemoryBankRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const banks = ctx.memoryBanks;

  app.get('/api/memory/banks', async () => {
    const list = await banks.list();
    return { banks: list, count: list.length };
  });

  app.get('/api/memory/banks/:id', async (request) => banks.existing(bankParam(request)));

  app.put('/api/memory/banks/:id', async (request) => {
    const body = request.body === undefined ? {} : parseRequest(MemoryBankPutBodySchema, asObject(request.body));
    return banks.put(bankParam(request), body, actorOf(request));
  });

  app.patch('/api/memory/banks/:id', async (request) => banks.patch(bankParam(request), parseRequest(MemoryBankPatchBodySchema, objectBody(request)), actorOf(request)));

  app.delete('/api/memory/banks/:id', async (request) => {
    const body = request.body === undefined ? {} : parseRequest(MemoryBankDeleteBodySchema, asObject(request.body));
    return banks.delete(bankParam(request), queryValue(request, 'confirm') ?? body.confirm, actorOf(request));
  });

  app.get('/api/memory/banks/:id/stats', async (request) => banks.stats(bankParam(request)));

  app.get('/api/memory/banks/:id/memories', async (request) => banks.content.memories(bankParam(request), { ...page(request), dataset: queryValue(request, 'dataset') }));
  app.get('/api/memory/banks/:id/memories/:item', async (request) => banks.content.memory(bankParam(request), itemParam(request)));
  app.delete('/api/memory/banks/:id/memories/:item', async (request) => banks.content.deleteMemory(bankParam(request), itemParam(request), actorOf(request)));

  app.get('/api/memory/banks/:id/documents', async (request) => banks.content.documents(bankParam(request), page(request)));
  app.get('/api/memory/banks/:id/documents/:item', async (request) => banks.content.document(bankParam(request), itemParam(request)));
  app.delete('/api/memory/banks/:id/documents/:item', async (request) => banks.content.deleteDocument(bankParam(request), itemParam(request), actorOf(request)));

  app.get('/api/memory/banks/:id/tags', async (request) => banks.content.tags(bankParam(request)));

  app.get('/api/memory/banks/:id/export', async (request, reply) => {
    const bank = bankParam(request);
    const lines = await banks.transfer.export(bank);
    return reply.header('content-type', NDJSON).header('content-disposition', `attachment; filename="${bank}.jsonl"`).send(Readable.from(lines));
  });

  // The body is JSON lines (application/x-ndjson), within [api].max_body_mb.
  app.register(async (scope) => {
    scope.addContentTypeParser(NDJSON, { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post('/api/memory/banks/:id/import', async (request) => {
      const body = typeof request.body === 'string' ? request.body : queryProblem('body', `expected JSON lines with Content-Type: ${NDJSON}`);
      const answer = await banks.transfer.importLines(bankParam(request), body, conflictQuery(request), actorOf(request));
      if (answer.added + answer.replaced > 0) answer.graph_queued = await ctx.memoryGraph.queueCopied(actorOf(request));
      return answer;
    });
  });

  app.post('/api/memory/banks/:id/reembed', async (request, reply) => reply.code(202).send(await banks.reembed.start(bankParam(request), actorOf(request))));
  app.get('/api/memory/banks/:id/reembed', async (request) => banks.reembed.job(bankParam(request)));
}
