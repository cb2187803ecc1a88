// The bundled svc-memory server at /mcp/memory/mcp (docs/mcp.md "svc-memory"), served like
// svc-admin (mcp-admin/front.ts: the SDK's own server and transport, stateless). Its tools act
// as the caller's agent: the X-Svc-Agent header of the MCP request (checked: a malformed one
// is 400 memory.agent_id_invalid before MCP starts), else the token's label when it is a valid
// agent id, else anonymous; X-Svc-Private is memory_add's default. With memory off
// ([memory].enabled = false) its tools are offered to no one, the omni loop included.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ANONYMOUS_AGENT, identityFromHeaders } from '../../memory/identity.js';
import type { ToolCaller } from '../../mcp/tool-host.js';
import { AGENT_ID_PATTERN } from '../../protocol/memory.js';
import type { ServerContext } from '../context.js';
import { callerOf, serveBundled } from '../mcp-admin/front.js';
import { identityOf } from '../request.js';
import { SVC_MEMORY_GATED, SVC_MEMORY_ID, svcMemoryTools } from './tools.js';

export const SVC_MEMORY_PATH = '/mcp/memory/mcp';

/** The agent a request acts for: its header, else its token's label (when that is an agent id). */
export function memoryCallerOf(ctx: ServerContext, request: FastifyRequest): ToolCaller {
  const memory = identityFromHeaders(request.headers);
  const identity = identityOf(request);
  const named = request.headers['x-svc-agent'] !== undefined && request.headers['x-svc-agent'] !== '';
  const agent = !named && identity.kind === 'token' && AGENT_ID_PATTERN.test(identity.label) ? identity.label : memory.agent;
  return { ...callerOf(ctx, request), agent: agent || ANONYMOUS_AGENT, private: memory.private };
}

export function registerMcpMemoryRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.mcp.registerBundled(SVC_MEMORY_ID, svcMemoryTools(ctx), {
    policy: { gated: SVC_MEMORY_GATED },
    enabled: () => ctx.config.svc.memory.enabled,
  });
  serveBundled(app, ctx, SVC_MEMORY_ID, SVC_MEMORY_PATH, (request) => memoryCallerOf(ctx, request));
}
