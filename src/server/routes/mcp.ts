// /api/mcp/*: tool servers (docs/api.md, "Tool servers (MCP)"). Handlers are thin: the tool
// server service (src/mcp/service.ts, ctx.mcp) installs, supervises and reconfigures; here
// bodies are checked, the host-only powers (running a program on this host, a URL off
// [mcp].allowed_hosts) go through the one host-only policy, and the tool calls are served as
// server-sent events.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  DEFAULT_MCP_LOG_LINES, hostOnlyConfigKeys, hostOnlyInstallKeys, McpConfigPatchSchema, McpInstallRequestSchema, McpToolsPatchSchema, toolUrlFields,
} from '../../protocol/mcp-requests.js';
import { checkMcpId } from '../../mcp/records.js';
import type { McpInstallRequest } from '../../protocol/mcp.js';
import { keepMaskedSecrets, maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { streamToolEvents } from '../mcp-streams.js';
import { requireToolUrlAuthority } from '../tool-url-authority.js';
import { actorOf, objectBody, queryProblem, queryValue } from '../request.js';

/** The id of the path; one that could name a path outside the servers folder is 400 mcp.invalid_id before any lookup. */
function idOf(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  checkMcpId(id);
  return id;
}

/** `lines`: how many of the last stderr lines. */
function linesQuery(request: FastifyRequest): number {
  const value = queryValue(request, 'lines');
  if (value === undefined) return DEFAULT_MCP_LOG_LINES;
  if (!/^\d+$/.test(value) || Number(value) < 1) return queryProblem('lines', `expected a positive integer; got ${JSON.stringify(value)}`);
  return Number(value);
}

export function registerMcpRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Every answer that shows a record shows it with URL passwords masked (protocol/url-secrets.ts);
  // the service keeps the real ones (the tool loop and hermes' loans connect with them).
  app.get('/api/mcp/servers', async () => {
    const servers = maskUrlSecretsIn(await ctx.mcp.list());
    return { servers, count: servers.length };
  });

  app.get('/api/mcp/servers/:id', async (request) => maskUrlSecretsIn(await ctx.mcp.get(idOf(request))));

  app.post('/api/mcp/install', async (request, reply) => {
    const body = parseRequest(McpInstallRequestSchema, objectBody(request));
    const target = body.id ?? body.spec ?? body.url ?? 'manifest';
    await requireHostAuthority(ctx, request, 'mcp.install', target, hostOnlyInstallKeys(body), 'installing a tool server that runs a program on this host');
    await requireToolUrlAuthority(ctx, request, 'mcp.install', target, toolUrlFields(body));
    const view = await ctx.mcp.install(body as McpInstallRequest, actorOf(request));
    reply.code(201);
    return maskUrlSecretsIn(view);
  });

  app.delete('/api/mcp/:id', async (request) => maskUrlSecretsIn(await ctx.mcp.uninstall(idOf(request), actorOf(request))));

  app.patch('/api/mcp/:id/config', async (request) => {
    const id = idOf(request);
    const current = await ctx.mcp.get(id);
    // The url, env or args sent back as a read showed them keep the record's secrets.
    const patch = keepMaskedSecrets(parseRequest(McpConfigPatchSchema, objectBody(request)), current);
    await requireHostAuthority(ctx, request, 'mcp.config', id, hostOnlyConfigKeys(current.transport, patch), "changing what a tool server's program runs with");
    await requireToolUrlAuthority(ctx, request, 'mcp.config', id, toolUrlFields(patch));
    return maskUrlSecretsIn(await ctx.mcp.patchConfig(id, patch, actorOf(request)));
  });

  app.patch('/api/mcp/:id/tools', async (request) => maskUrlSecretsIn(await ctx.mcp.patchTools(idOf(request), parseRequest(McpToolsPatchSchema, objectBody(request)), actorOf(request))));

  // Start, stop and restart answer once the server is ready (or stopped): no body.
  app.post('/api/mcp/:id/start', async (request) => maskUrlSecretsIn(await ctx.mcp.start(idOf(request), actorOf(request))));
  app.post('/api/mcp/:id/stop', async (request) => maskUrlSecretsIn(await ctx.mcp.stop(idOf(request), actorOf(request))));
  app.post('/api/mcp/:id/restart', async (request) => maskUrlSecretsIn(await ctx.mcp.restart(idOf(request), actorOf(request))));
  app.post('/api/mcp/:id/test', async (request) => maskUrlSecretsIn(await ctx.mcp.test(idOf(request))));

  app.get('/api/mcp/:id/logs', async (request) => {
    const id = idOf(request);
    const lines = linesQuery(request);
    return maskUrlSecretsIn(await ctx.mcp.logs(id, lines));
  });

  app.get('/api/mcp/catalog', async () => ctx.mcp.catalog());
  app.post('/api/mcp/catalog/refresh', async () => ctx.mcp.refreshCatalog());

  const streams = new Set<() => void>();
  // An open stream would hold a graceful shutdown until its grace period ends.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.get('/api/mcp/stream', async (_request, reply) => streamToolEvents(ctx, reply, streams));
}
