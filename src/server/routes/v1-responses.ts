// /v1/responses: OpenAI's Responses API for every target. A remote upstream configured with
// `responses = true` gets the request passed through byte for byte; every other target (a
// slot on any engine, a chat-only upstream) gets a chat completion translated from it
// (src/dispatch/responses/), forwarded by the same dispatcher as /v1/chat/completions, and
// the answer translated back by the sink. Answers with store: true are kept for
// [dispatcher].responses_ttl_s so previous_response_id, GET, DELETE and input_items work.
import type { FastifyInstance } from 'fastify';
import { withModel } from '../../dispatch/body-rewrite.js';
import { newResponseId, planChat, type ChatPlan, type ResponseItem } from '../../dispatch/responses/index.js';
import { inputItemsPage } from '../../dispatch/responses/input-items.js';
import { responsesResult } from '../../dispatch/responses/translate.js';
import type { DispatchResult } from '../../dispatch/result.js';
import { withThinking } from '../../dispatch/thinking.js';
import type { DispatchRequest, ForwardTarget } from '../../dispatch/types.js';
import { cameFromPeer } from '../../peers/hop.js';
import { RequestError, SvcError, SystemError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';
import { type DirectHandler, type DirectRequest, throughFastify } from '../front-door.js';
import { attributed } from '../agent-attribution.js';
import { clientGone, writeResult } from '../write-result.js';

const JSON_OR_SSE = /^\s*(application\/([\w.+-]*\+)?json|text\/event-stream)\b/i;

export function registerV1ResponseRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const direct: DirectHandler = attributed(ctx, '/v1/responses', (request) => createResponse(ctx, request));
  app.post('/v1/responses', { config: { direct } }, throughFastify(direct));

  app.get('/v1/responses/:id', async (request) => stored(ctx, (request.params as { id: string }).id).response);

  app.delete('/v1/responses/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!store(ctx).delete(id)) throw notFound(id);
    return { id, object: 'response.deleted', deleted: true };
  });

  app.get('/v1/responses/:id/input_items', async (request) => {
    const { id } = request.params as { id: string };
    return inputItemsPage(stored(ctx, id).input as ResponseItem[], request.query as Record<string, unknown>);
  });
}

function store(ctx: ServerContext) {
  if (!ctx.responses) throw new SystemError('system.unavailable', 'stored responses are not available: the activity database could not be opened (see the gateway log)');
  return ctx.responses;
}

const notFound = (id: string) => new SvcError('response.not_found', `no stored response has the id "${id}" (never stored, expired or deleted)`, { id });

function stored(ctx: ServerContext, id: string) {
  const found = store(ctx).get(id);
  if (!found) throw notFound(id);
  return found;
}

async function createResponse(ctx: ServerContext, request: DirectRequest): Promise<void> {
  const { body } = request;
  const model = body.model;
  if (typeof model !== 'string' || model === '') {
    throw new RequestError('request.invalid', '`model` is required: a slot name, a model id, or a svc/* name', { problems: [{ path: 'model', message: 'required (a string)' }] });
  }
  const call = {
    model, route: 'chat' as const, contentType: 'application/json', accepts: JSON_OR_SSE, stream: body.stream === true,
    fromPeer: cameFromPeer(request.req.headers), signal: clientGone(request.res), timing: { arrivedAt: request.arrivedAt, loadMs: 0, sentAt: 0 },
  };
  // A model only peers serve, or a replica group's id, resolves to nothing here: dispatch() finds it.
  const target = await ctx.dispatcher.resolve(model, 'chat').catch((error: unknown) => {
    if (ctx.peers.active && error instanceof SvcError && error.code === 'model.not_found') return undefined;
    throw error;
  });
  const passes = target?.kind === 'upstream' && ctx.upstreams.endpoint(target.upstream, model).responses;
  return writeResult(request.res, await (passes ? passThrough(ctx, request, call) : translate(ctx, request, call)));
}

type Call = Omit<DispatchRequest, 'upstreamPath' | 'body'>;

/**
 * An upstream with the Responses API: the client's bytes, with only the model id changed.
 * With peers it is one replica of a set (docs/scaling.md) whose other members are the ones
 * that take /v1/responses themselves: peers (svc gateways) and upstreams with the API.
 */
function passThrough(ctx: ServerContext, request: DirectRequest, call: Call): Promise<DispatchResult> {
  const { body, raw } = request;
  return ctx.dispatcher.dispatch({
    ...call, upstreamPath: '/responses',
    serves: (target) => target.kind === 'peer' || (target.kind === 'upstream' && hasResponsesApi(ctx, target.upstream, target.model)),
    body: (upstreamModel) => (raw && upstreamModel === body.model ? raw : (raw && withModel(raw, upstreamModel)) || JSON.stringify({ ...body, model: upstreamModel })),
  });
}

function hasResponsesApi(ctx: ServerContext, upstream: string, model: string): boolean {
  try {
    return ctx.upstreams.endpoint(upstream, model).responses;
  } catch {
    return false; // no longer configured (a reload): no candidate
  }
}

/** Any other target: the Responses request as a chat completion (planChat), its answer translated back (responsesResult). */
async function translate(ctx: ServerContext, request: DirectRequest, call: Call): Promise<DispatchResult> {
  const { body } = request;
  const previous = typeof body.previous_response_id === 'string' ? stored(ctx, body.previous_response_id) : null;
  const history = previous ? [...(previous.input as ResponseItem[]), ...((previous.response.output ?? []) as ResponseItem[])] : [];
  const plan = planChat(body, history, (itemId) => ctx.responses?.item(itemId) as ResponseItem | undefined);
  const { stream } = call;
  const id = newResponseId();
  const keep = body.store !== false;
  const chat = await ctx.dispatcher.dispatch({
    ...call, upstreamPath: '/chat/completions',
    body: (upstreamModel, target) => JSON.stringify(chatBody(ctx, plan, upstreamModel, target, stream, body.reasoning)),
  });
  return responsesResult(chat, {
    stream,
    meta: { id, createdAt: Math.floor(Date.now() / 1000), model: call.model, echo: plan.echo },
    onDone: (response) => {
      if (!keep || !ctx.responses) return;
      // Not kept (ttl 0, over the size cap): the answer says so instead of promising a later read.
      if (!ctx.responses.put(id, [...history, ...plan.input], response, ctx.config.svc.dispatcher.responses_ttl_s)) response.store = false;
    },
  });
}

/** The chat completion for a target: a slot takes enable_thinking, a remote upstream OpenAI's reasoning_effort. */
function chatBody(ctx: ServerContext, plan: ChatPlan, model: string, target: ForwardTarget, stream: boolean, reasoning: unknown): Record<string, unknown> {
  const chat: Record<string, unknown> = { ...plan.chat, model, stream, ...(stream && { stream_options: { include_usage: true } }) };
  if (target.kind !== 'slot') {
    const effort = (reasoning as { effort?: unknown } | null | undefined)?.effort;
    return typeof effort === 'string' ? { ...chat, reasoning_effort: effort } : chat;
  }
  const slotDefault = ctx.config.slots.find((e) => e.name === target.slot)?.config.slot.enable_thinking ?? null;
  if (plan.enableThinking !== null) return { ...chat, chat_template_kwargs: { enable_thinking: plan.enableThinking } };
  return withThinking(chat, slotDefault);
}
