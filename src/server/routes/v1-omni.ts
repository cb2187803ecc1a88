// `omni: true` on POST /v1/chat/completions (docs/omni.md): the route's side of the
// tool loop of src/omni. It runs the loop when the target can call tools and a tool is on
// offer; otherwise the request goes through once, as if `omni` had not been sent.
import { scopeOf } from '../../auth/identity.js';
import { withThinking } from '../../dispatch/thinking.js';
import type { DispatchResult } from '../../dispatch/result.js';
import type { DispatchTarget } from '../../dispatch/types.js';
import { TemplateCache } from '../../engines/tool-calling.js';
import { type OmniDeps, planOmni, runOmni } from '../../omni/loop.js';
import type { ServerContext } from '../context.js';
import type { DirectRequest } from '../front-door.js';
import { agentOf } from '../agent-attribution.js';

/** Chat templates read from model files, once per file per gateway. */
const templateCaches = new WeakMap<ServerContext, TemplateCache>();

/** The loop's answer; null when the request should go through once, unchanged. `signal`: the client left. */
export async function omniChat(ctx: ServerContext, model: string, request: DirectRequest, signal: AbortSignal): Promise<DispatchResult | null> {
  let templates = templateCaches.get(ctx);
  if (!templates) templateCaches.set(ctx, (templates = new TemplateCache()));
  const deps: OmniDeps = {
    dispatcher: ctx.dispatcher, images: ctx, config: ctx.config, tools: ctx.mcp, templates,
    body: (chat, upstreamModel, target) => JSON.stringify(chatFor(ctx, { ...chat, model: upstreamModel }, target)),
  };
  // Default mode: null (everything allowed); auth mode: the token's scope.
  const scope = ctx.config.env.authEnabled ? scopeOf(request.identity ?? { kind: 'anonymous' }) ?? 'read-only' : null;
  // The agent (X-Svc-Agent, checked, or its token) is attributed each tool call, and svc-memory's tools act as it.
  const agent = agentOf(request.req.headers, request.identity);
  const plan = await planOmni(deps, model, { scope, ...(agent && { agent }), private: /^(1|true|yes|on)$/i.test(String(request.req.headers['x-svc-private'] ?? '').trim()) }, request.body.tools);
  return plan ? runOmni(deps, plan, model, request.body, signal) : null;
}

/** The slot's reasoning default, as the plain route applies it. */
function chatFor(ctx: ServerContext, chat: Record<string, unknown>, target: DispatchTarget): Record<string, unknown> {
  if (target.kind !== 'slot') return chat;
  const thinking = ctx.config.slots.find((e) => e.name === target.slot)?.config.slot.enable_thinking ?? null;
  return thinking === null ? chat : withThinking(chat, thinking);
}
