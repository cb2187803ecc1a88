// The OpenAI-compatible POST routes: parse the body once, resolve the model to a slot or a
// remote upstream, make the slot ready (holding the connection while it loads), rewrite
// the model id, and relay the upstream's answer byte for byte (docs/routing.md). The work
// is the dispatcher's (src/dispatch/dispatcher.ts); these handlers only read the body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { withThinking } from '../../dispatch/thinking.js';
import type { V1Route } from '../../dispatch/types.js';
import { RequestError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';
import { objectBody } from '../request.js';
import { dispatchOn } from './v1-client.js';

const ROUTES: ReadonlyArray<{ url: string; route: V1Route; upstreamPath: string }> = [
  { url: '/v1/chat/completions', route: 'chat', upstreamPath: '/chat/completions' },
  { url: '/v1/completions', route: 'completions', upstreamPath: '/completions' },
  { url: '/v1/embeddings', route: 'embeddings', upstreamPath: '/embeddings' },
  // llama-server serves /v1/rerank; /v1/rerankings is the spec's name for the same thing.
  { url: '/v1/rerankings', route: 'rerank', upstreamPath: '/rerank' },
  { url: '/v1/rerank', route: 'rerank', upstreamPath: '/rerank' },
];

/** What an answer to these routes is: JSON, or an SSE stream. */
const JSON_OR_SSE = /^\s*(application\/([\w.+-]*\+)?json|text\/event-stream)\b/i;

export function registerV1Routes(app: FastifyInstance, ctx: ServerContext): void {
  for (const def of ROUTES) {
    app.post(def.url, { config: { access: 'v1' } }, (request, reply) => dispatch(ctx, def.route, def.upstreamPath, request, reply));
  }
}

async function dispatch(ctx: ServerContext, route: V1Route, upstreamPath: string, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const body = objectBody(request);
  if (typeof body.model !== 'string' || body.model === '') {
    throw new RequestError('request.invalid', '`model` is required: a slot name, a model id, or a svc/* name', { problems: [{ path: 'model', message: 'required (a string)' }] });
  }
  if (route === 'chat') delete body.omni; // the client-side tool loop arrives with tool servers (docs/routing.md)
  const stream = body.stream === true;
  return dispatchOn(reply, stream, (client) => ctx.dispatcher.dispatch(body.model as string, route, {
    upstreamPath,
    contentType: 'application/json',
    accepts: JSON_OR_SSE,
    stream,
    // Slot names and aliases become the backing model id; a provider's model_prefix comes off.
    // A chat request to a slot gets the slot's reasoning default (dispatch/thinking.ts).
    body: (model, target) => {
      const thinking = route === 'chat' && target.kind === 'slot' ? slotThinking(ctx, target.slot) : null;
      return JSON.stringify(thinking === null ? { ...body, model } : withThinking({ ...body, model }, thinking));
    },
  }, client));
}

/** The slot's [slot].enable_thinking (null when its file is gone, e.g. mid-reload). */
function slotThinking(ctx: ServerContext, slot: string): boolean | null {
  return ctx.config.slots.find((e) => e.name === slot)?.config.slot.enable_thinking ?? null;
}
