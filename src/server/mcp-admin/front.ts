// The HTTP front end of the bundled servers, svc-admin at /mcp/admin/mcp (docs/mcp.md) and
// svc-memory at /mcp/memory/mcp (server/mcp-memory/front.ts): the
// MCP SDK's own Server and StreamableHTTPServerTransport in stateless mode, a server and a
// transport per request, so every protocol byte is the SDK's. The tools it lists and calls
// go through the tool server service (ctx.mcp), which applies the tool policy, the caller's
// token scope, approvals and the mcp.tool.* events, exactly as for the omni loop.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { scopeOf } from '../../auth/identity.js';
import { SvcError } from '../../protocol/errors.js';
import type { ToolCaller, ToolResult } from '../../mcp/tool-host.js';
import type { ServerContext } from '../context.js';
import { identityOf } from '../request.js';
import { agentOf } from '../agent-attribution.js';
import { svcAdminTools } from './tools.js';

export const SVC_ADMIN_ID = 'svc-admin';
export const SVC_ADMIN_PATH = '/mcp/admin/mcp';

/** Who calls: the token's scope in auth mode (null in default mode: every tool), and a name for the queue and events. */
export function callerOf(ctx: ServerContext, request: FastifyRequest): ToolCaller {
  const identity = identityOf(request);
  const scope = ctx.config.env.authEnabled ? (scopeOf(identity) ?? null) : null;
  const address = request.socket.remoteAddress ?? 'unknown';
  const who = identity.kind === 'anonymous' ? address : identity.label;
  // The approvals queue joins calls of one caller only: a token by its id (a label can be
  // reused after a revoke), a proxy user by name, anyone else by address.
  const key = identity.kind === 'token' ? `token:${identity.id}` : identity.kind === 'proxy' ? `proxy:${identity.label}` : `address:${address}`;
  const agent = agentOf(request.headers, identity);
  return { scope, client: `mcp:${who}`, identity: key, ...(agent && { agent }) };
}

/** A tool's answer as MCP's CallToolResult: the server's own content when it has one. */
function callResult(result: ToolResult): CallToolResult {
  const raw = result.raw as Partial<CallToolResult> | undefined;
  if (raw && Array.isArray(raw.content)) return { ...raw, content: raw.content, isError: result.isError };
  return { content: [{ type: 'text', text: result.text }], isError: result.isError };
}

/** One SDK server for one request: its tools are the bundled server's as ctx.mcp offers them to this caller. */
function bundledServer(ctx: ServerContext, id: string, caller: ToolCaller, signal: AbortSignal): Server {
  const server = new Server({ name: id, version: ctx.version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const offered = (await ctx.mcp.offered(caller)).filter((tool) => tool.server === id);
    return {
      tools: offered.map((tool) => ({
        name: tool.tool,
        description: tool.description,
        inputSchema: { ...tool.input_schema, type: 'object' as const },
        annotations: { readOnlyHint: tool.read_only },
      })),
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    try {
      const result = await ctx.mcp.call(`${id}__${request.params.name}`, request.params.arguments ?? {}, caller, { signal });
      return callResult(result);
    } catch (error) {
      // Refusals (blocked, scope, denied, timed out) are tool errors the client can read, with their code.
      if (error instanceof SvcError) return { content: [{ type: 'text', text: `${error.code}: ${error.message}` }], isError: true };
      throw error;
    }
  });
  return server;
}

export function registerMcpAdminRoutes(app: FastifyInstance, ctx: ServerContext): void {
  ctx.mcp.registerBundled(SVC_ADMIN_ID, svcAdminTools(ctx));
  serveBundled(app, ctx, SVC_ADMIN_ID, SVC_ADMIN_PATH, (request) => callerOf(ctx, request));
}

/** Serves a registered bundled server at `path`; `caller` may throw to refuse a request before MCP starts. */
export function serveBundled(app: FastifyInstance, ctx: ServerContext, id: string, path: string, caller: (request: FastifyRequest) => ToolCaller): void {
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    const who = caller(request);
    const aborted = new AbortController();
    const server = bundledServer(ctx, id, who, aborted.signal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // A GET is a stream the client keeps: it counts against the cap on open streams.
    const release = request.method === 'GET' ? ctx.streams.admit(ctx.auth.guard.clientOf({ headers: request.headers, peer: request.socket.remoteAddress })) : () => {};
    reply.hijack();
    const raw: { req: IncomingMessage; res: ServerResponse } = { req: request.raw, res: reply.raw };
    const end = () => {
      open.delete(end);
      release();
      aborted.abort();
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    };
    open.add(end);
    raw.res.once('close', end);
    try {
      await server.connect(transport);
      await transport.handleRequest(raw.req, raw.res, request.body);
    } catch (error) {
      process.stderr.write(`${id} MCP request failed: ${(error as Error).stack ?? String(error)}\n`);
      if (!raw.res.headersSent) {
        const envelope = new SvcError('system.internal', `the ${id} MCP server failed on this request (the gateway log has the stack)`).toEnvelope();
        raw.res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(envelope));
      } else if (!raw.res.writableEnded) raw.res.end();
    }
  };
  app.post(path, handle);
  app.get(path, handle);
  app.delete(path, handle);
}
