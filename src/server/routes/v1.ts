// The OpenAI-compatible POST routes: parse the body once, resolve the model to a slot or a
// remote upstream, make the slot ready (holding the connection while it loads), rewrite
// the model id, and relay the upstream's answer byte for byte (docs/routing.md). The work
// is the dispatcher's (src/dispatch/dispatcher.ts); these are direct routes, answered by the
// front door (../front-door.ts) without Fastify's per-request pipeline.
import type { FastifyInstance } from 'fastify';
import { withModel } from '../../dispatch/body-rewrite.js';
import { withThinking } from '../../dispatch/thinking.js';
import type { V1Route } from '../../dispatch/types.js';
import { cameFromPeer } from '../../peers/hop.js';
import { RequestError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';
import { type DirectHandler, type DirectRequest, throughFastify } from '../front-door.js';
import { attributed } from '../agent-attribution.js';
import { clientGone, writeResult } from '../write-result.js';
import { omniChat } from './v1-omni.js';

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
    const direct: DirectHandler = attributed(ctx, def.url, (request) => dispatch(ctx, def.route, def.upstreamPath, request));
    app.post(def.url, { config: { direct } }, throughFastify(direct));
  }
}

async function dispatch(ctx: ServerContext, route: V1Route, upstreamPath: string, request: DirectRequest): Promise<void> {
  const { body, res } = request;
  const requested = body.model;
  if (typeof requested !== 'string' || requested === '') {
    throw new RequestError('request.invalid', '`model` is required: a slot name, a model id, or a svc/* name', { problems: [{ path: 'model', message: 'required (a string)' }] });
  }
  const signal = clientGone(res);
  const timing = { arrivedAt: request.arrivedAt, loadMs: 0, sentAt: 0 };
  // omni: true runs the tool loop on the server (docs/omni.md); a target without tools gets the request without the key.
  const omni = route === 'chat' && 'omni' in body;
  if (omni) {
    const wanted = body.omni === true;
    delete body.omni;
    const looped = wanted ? await omniChat(ctx, requested, request, signal.signal) : null;
    if (looped) return writeResult(res, looped);
  }
  const result = await ctx.dispatcher.dispatch({
    model: requested,
    route,
    upstreamPath,
    contentType: 'application/json',
    accepts: JSON_OR_SSE,
    stream: body.stream === true,
    fromPeer: cameFromPeer(request.req.headers),
    signal,
    timing,
    // Slot names and aliases become the backing model id; a provider's model_prefix comes off.
    // A chat request to a slot gets the slot's reasoning default (dispatch/thinking.ts).
    // Otherwise the bytes the client sent go on as they are, or with only the model's value
    // spliced (body-rewrite.ts): the body is parsed once and never serialised again.
    body: (model, target) => {
      const thinking = route === 'chat' && target.kind === 'slot' ? slotThinking(ctx, target.slot) : null;
      if (thinking !== null) return JSON.stringify(withThinking({ ...body, model }, thinking));
      if (request.raw && !omni) {
        if (model === requested) return request.raw;
        const spliced = withModel(request.raw, model);
        if (spliced) return spliced;
      }
      return JSON.stringify({ ...body, model });
    },
  });
  return writeResult(res, result);
}

/** The slot's [slot].enable_thinking (null when its file is gone, e.g. mid-reload). */
function slotThinking(ctx: ServerContext, slot: string): boolean | null {
  return ctx.config.slots.find((e) => e.name === slot)?.config.slot.enable_thinking ?? null;
}
