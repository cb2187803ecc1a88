// /api/memory/graph* and a bank's subgraph (docs/api.md "Memory graph", docs/memory.md
// "Graph"). The PUT merges into [memory.graph] of svc.toml through the
// settings writer (atomic, one writer at a time) and, on the hindsight engine, rewrites the
// daemon's systemd drop-in and restarts it: running systemctl is a host-only power, asked
// of the one host-only policy before anything is written.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withSvcToml } from '../../config/load.js';
import { formatProblem } from '../../config/problems.js';
import { updateSvcToml } from '../../config/settings.js';
import { identityFromHeaders } from '../../memory/identity.js';
import { DEFAULT_DROP_IN_DIR, notApplicable, propagateToHindsight } from '../../memory/graph/drop-in.js';
import type { SubgraphQuery } from '../../memory/graph/subgraph.js';
import { ConfigError } from '../../protocol/errors.js';
import {
  MemoryGraphPutSchema, type MemoryGraphPutAnswer, SUBGRAPH_BY, SUBGRAPH_KINDS, SUBGRAPH_MAX_DEPTH, SUBGRAPH_MAX_LIMIT, SUBGRAPH_MODES,
} from '../../protocol/memory-graph.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody, queryProblem, queryValue } from '../request.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function choice<T extends string>(request: FastifyRequest, key: string, allowed: readonly T[]): T {
  const value = queryValue(request, key);
  if (value === undefined) return allowed[0]!;
  if (!(allowed as readonly string[]).includes(value)) return queryProblem(key, `expected one of ${allowed.join(', ')}; got ${JSON.stringify(value.slice(0, 40))}`);
  return value as T;
}

function integer(request: FastifyRequest, key: string, min: number, max: number, fallback: number): number {
  const value = queryValue(request, key);
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max) return queryProblem(key, `expected an integer from ${min} to ${max}; got ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

function subgraphQuery(request: FastifyRequest): SubgraphQuery {
  const kind = choice(request, 'kind', SUBGRAPH_KINDS);
  const mode = choice(request, 'mode', SUBGRAPH_MODES);
  const by = choice<string>(request, 'by', SUBGRAPH_BY[kind]);
  const node = queryValue(request, 'node');
  if (mode === 'ego' && node === undefined) return queryProblem('node', 'mode=ego needs the id of the node to start from');
  if (node !== undefined && !UUID.test(node)) return queryProblem('node', `expected an ${kind === 'entities' ? 'entity' : 'memory'} id (a UUID); got ${JSON.stringify(node.slice(0, 60))}`);
  return {
    kind, mode, by, ...(node !== undefined && { node }),
    limit: integer(request, 'limit', 1, SUBGRAPH_MAX_LIMIT, 100),
    depth: integer(request, 'depth', 1, SUBGRAPH_MAX_DEPTH, 1),
    topK: integer(request, 'top_k', 1, SUBGRAPH_MAX_LIMIT, 10),
  };
}

export function registerMemoryGraphRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.addHook('onClose', async () => ctx.memoryGraph.close());
  const dropInDir = process.env.SVC_HINDSIGHT_DROPIN_DIR || DEFAULT_DROP_IN_DIR;
  const settings = () => ctx.config.svc.memory.graph;

  app.get('/api/memory/graph/status', async () => ctx.memoryGraph.status());

  app.get('/api/memory/graph', async () => ({ ...settings(), status: ctx.memoryGraph.status() }));

  app.put('/api/memory/graph', async (request): Promise<MemoryGraphPutAnswer> => {
    const parsed = MemoryGraphPutSchema.safeParse(objectBody(request));
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => {
        const field = issue.code === 'unrecognized_keys' ? issue.keys[0]! : issue.path.join('.');
        return { path: `memory.graph.${field}`, message: issue.message };
      });
      throw new ConfigError('config.memory_graph_invalid', `[memory.graph] not changed: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { field: problems[0]!.path, problems });
    }
    const patch = parsed.data;
    if (patch.extraction_slot !== undefined) {
      const available = ctx.memoryGraph.availableSlots(ctx.config);
      if (!available.includes(patch.extraction_slot)) {
        throw new ConfigError('config.memory_graph_slot_invalid', `memory.graph.extraction_slot: "${patch.extraction_slot}" is not an enabled llm slot (${available.length ? `one of ${available.join(', ')}` : 'none is configured'})`, { field: 'memory.graph.extraction_slot', slot: patch.extraction_slot, available_slots: available });
      }
    }
    const hindsight = ctx.config.svc.memory.engine === 'hindsight';
    if (hindsight) await requireHostAuthority(ctx, request, 'memory.graph.update', 'memory.graph', ['memory.graph'], 'on the hindsight engine this rewrites a systemd drop-in and restarts hindsight-api.service');
    const result = await ctx.configWrites.run(() => updateSvcToml(ctx.paths, { memory: { graph: patch } }));
    if (!result.ok) {
      const problems = result.problems.map(({ path, message }) => ({ path: path ?? 'memory.graph', message }));
      throw new ConfigError('config.memory_graph_invalid', `[memory.graph] not changed: ${result.problems.map(formatProblem).join('; ')}`, { field: problems[0]?.path ?? 'memory.graph', problems });
    }
    ctx.replaceConfig(withSvcToml(ctx.config, result.after));
    const now = settings();
    const propagation = hindsight
      ? await propagateToHindsight(now.extraction_slot, now.llm_timeout_s, { dir: dropInDir })
      : notApplicable(now.extraction_slot, now.llm_timeout_s, ctx.config.svc.memory.engine);
    ctx.record({
      action: 'memory.graph.update', target: 'memory.graph', actor: actorOf(request), outcome: propagation.error ? 'error' : 'ok',
      ...(propagation.error && { message: propagation.error }), details: { changed: result.changed, ...now, propagation: { ...propagation } },
    });
    ctx.events.publish({
      type: 'memory.graph.updated', source: 'memory', severity: propagation.error ? 'warn' : 'info',
      message: `[memory.graph] ${result.changed.length ? `changed: ${result.changed.join(', ')}` : 'unchanged'}${propagation.error ? ` (propagation: ${propagation.error})` : ''}`,
      data: { changed: result.changed, ...now, propagated: propagation.restarted, error: propagation.error },
    });
    if (result.changed.length > 0) ctx.events.publish({ type: 'settings.changed', source: 'settings', message: `settings changed: ${result.changed.join(', ')}`, data: { keys: result.changed } });
    return { ...now, status: ctx.memoryGraph.status(), propagation, changed: result.changed };
  });

  app.post('/api/memory/graph/retry', async (request) => ctx.memoryGraph.retry(actorOf(request)));

  app.get('/api/memory/banks/:id/graph/subgraph', async (request) => {
    const who = identityFromHeaders(request.headers);
    return ctx.memoryGraph.subgraph(who, (request.params as { id: string }).id, subgraphQuery(request));
  });
}
