// /api/models/<id>/pull and friends: start, watch and cancel model pulls; search the
// endpoint. The work is in src/models/pull; handlers check the body and answer. The pull
// machinery (undici, the GGUF reader, the hashing) loads on the first pull route a client
// calls, not at start-up (docs/performance.md), or at boot when a previous gateway left a
// pull unfinished (serve.ts): the manager is the context's (ctx.pulls()).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PullManager } from '../../models/pull/jobs.js';
import { MODEL_ID_PATTERN, MODEL_ID_RULE } from '../../config/schema/registry.js';
import { ModelError } from '../../protocol/errors.js';
import { PullRequestSchema, TERMINAL_PULL_STATES, type PullJobPayload, type SearchPayload, type SearchResultPayload } from '../../protocol/pulls.js';
import { parseRequest } from '../../protocol/validate.js';
import { actorOf, booleanQuery, queryProblem, queryValue } from '../request.js';
import type { ServerContext } from '../context.js';
import { keepAlive, openEventStream } from '../sse.js';

const STREAM_EVERY_MS = 500;

function modelIdOf(params: unknown): string {
  const { id } = params as { id: string };
  if (!MODEL_ID_PATTERN.test(id)) throw new ModelError('model.invalid_id', `invalid model id ${JSON.stringify(id)}: expected ${MODEL_ID_RULE}`, { id });
  return id;
}

const service = () => import('../pull-service.js');

export function registerPullRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const streams = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of [...streams]) end();
    await ctx.closePulls();
  });

  /** The job: the manager's (restored from its record after a restart), else a registered model's. */
  const jobOf = async (id: string): Promise<PullJobPayload> => {
    const job = (await ctx.pulls()).get(id) ?? (await service()).registeredPullJob(ctx, id);
    if (!job) throw new ModelError('model.pull_no_job', `no pull of ${id} is known and no model ${id} is registered; start one with POST /api/models/${id}/pull`, { model_id: id });
    return job;
  };

  app.post('/api/models/:id/pull', async (request, reply) => {
    const id = modelIdOf(request.params);
    const body = parseRequest(PullRequestSchema, request.body ?? {});
    const ref = body.ref ?? id;
    const { checkPlan, planFor } = await service();
    if (body.dry_run) {
      const plan = await planFor(ctx, id, ref, { context: body.context });
      let refusal: { code: string; message: string } | null = null;
      try {
        checkPlan(plan, body.force);
      } catch (error) {
        refusal = { code: (error as ModelError).code, message: (error as ModelError).message };
      }
      return { plan, refusal };
    }
    reply.code(202);
    return ctx.modelCommands.pull(id, ref, { force: body.force, context: body.context }, { actor: actorOf(request) });
  });

  app.get('/api/models/pulls', async () => ({ pulls: (await ctx.pulls()).list() }));

  app.get('/api/models/:id/pull/status', async (request) => jobOf(modelIdOf(request.params)));

  app.delete('/api/models/:id/pull', async (request) => {
    const id = modelIdOf(request.params);
    const pulls = await ctx.pulls();
    // A registered model with no job left has nothing to cancel: it answers as done.
    if (!pulls.get(id)) return jobOf(id);
    return pulls.cancel(id, booleanQuery(request, 'discard'));
  });

  app.get('/api/models/:id/pull/stream', async (request, reply) => {
    const id = modelIdOf(request.params);
    streamPull(ctx, id, await jobOf(id), await ctx.pulls(), reply, streams);
  });

  app.get('/api/models/search', async (request) => search(ctx, request));

  // Forget a finished job (done, failed or cancelled): the dashboard's Dismiss. Its parts stay on disk unless ?discard=true.
  app.delete('/api/models/pulls/:job', async (request) => {
    const { job } = request.params as { job: string };
    return { dismissed: await (await ctx.pulls()).dismiss(job, booleanQuery(request, 'discard')) };
  });
}

/** Server-sent events: the job at once, then at most one frame each 0.5 s; a terminal state is always sent, as the final frame. */
function streamPull(ctx: ServerContext, id: string, first: PullJobPayload, pulls: PullManager, reply: FastifyReply, streams: Set<() => void>): void {
  const raw = openEventStream(reply, ctx);
  let last = 0;
  let pending: NodeJS.Timeout | undefined;
  const send = () => {
    pending = undefined;
    last = Date.now();
    const job = pulls.get(id) ?? first;
    raw.write(`data: ${JSON.stringify(job)}\n\n`);
    if (TERMINAL_PULL_STATES.includes(job.state)) end();
  };
  const changed = (job: PullJobPayload) => {
    if (job.model_id !== id || pending) return;
    const wait = TERMINAL_PULL_STATES.includes(job.state) ? 0 : Math.max(0, last + STREAM_EVERY_MS - Date.now());
    pending = setTimeout(send, wait);
  };
  const unsubscribe = pulls.subscribe(changed);
  const stopKeepAlive = keepAlive(raw);
  const end = () => {
    unsubscribe();
    stopKeepAlive();
    clearTimeout(pending);
    streams.delete(end);
    if (!raw.writableEnded) raw.end();
  };
  streams.add(end);
  raw.on('close', end);
  send();
}

/** GET /api/models/search?q=&limit=: Hugging Face repositories matching the text. */
async function search(ctx: ServerContext, request: FastifyRequest): Promise<SearchPayload> {
  const text = queryValue(request, 'q') ?? '';
  if (text.trim() === '') queryProblem('q', 'the text to search for is required');
  const limitText = queryValue(request, 'limit') ?? '20';
  const limit = Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) queryProblem('limit', 'expected an integer from 1 to 100');
  const { hubOf, searchRepos } = await service();
  // The hub speaks in pull errors; a search that fails is a search failure, with the same message.
  const results: SearchResultPayload[] = await searchRepos(hubOf(ctx), text, limit).catch((error: unknown) => {
    if (!(error instanceof ModelError) || !error.code.startsWith('model.pull_')) throw error;
    throw new ModelError('model.search_failed', `searching for ${JSON.stringify(text)} failed: ${error.message}`, { ...error.details, cause: error.code });
  });
  return { query: text, results };
}
