// /api/agents/* (docs/api.md "Agents", docs/agents.md). Thin: the agents service (ctx.agents)
// does the work. Installing, switching and upgrading run npm or a runtime on this host, so they
// go through the host-only policy first; they answer 202 with a job whose steps are `agent.*`
// events on /api/events/stream, and GET /api/agents/jobs/<id> polls it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkAgentName } from '../../agents/service.js';
import { agentActor, type AgentActivityPayload, AgentInstallRequestSchema, AgentUpgradeRequestSchema, type AgentLogPayload } from '../../protocol/agents.js';
import { AgentError, SystemError } from '../../protocol/errors.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, booleanQuery, objectBody, queryProblem, queryValue } from '../request.js';

const HOST_ONLY_WHY = 'installing an agent runs npm or a runtime on this host';
const PHASE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

function nameParam(ctx: ServerContext, request: FastifyRequest): string {
  return checkAgentName((request.params as { name: string }).name, ctx.agents.drivers);
}

function limitQuery(request: FastifyRequest): number {
  const value = queryValue(request, 'limit');
  if (value === undefined) return 50;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 500) return queryProblem('limit', `expected an integer from 1 to 500; got ${JSON.stringify(value)}`);
  return Number(value);
}

export function registerAgentRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/agents', async () => ctx.agents.list());

  app.post('/api/agents/install', async (request, reply) => {
    const body = objectBody(request);
    // The name first: name_required, invalid_name and unknown before anything else is looked at.
    checkAgentName(body.name, ctx.agents.drivers);
    const install = parseRequest(AgentInstallRequestSchema, body);
    await requireHostAuthority(ctx, request, 'agent.install', install.name, ['agents.install'], HOST_ONLY_WHY);
    const job = await ctx.agents.install(install, actorOf(request));
    reply.code(202);
    return { job };
  });

  app.get('/api/agents/jobs/:id', async (request) => ({ job: ctx.agents.jobs.get((request.params as { id: string }).id) }));

  app.get('/api/agents/:name', async (request) => ctx.agents.view(nameParam(ctx, request)));

  app.delete('/api/agents/:name', async (request) => {
    const name = nameParam(ctx, request);
    await requireHostAuthority(ctx, request, 'agent.uninstall', name, ['agents.install'], HOST_ONLY_WHY);
    return ctx.agents.uninstall(name, booleanQuery(request, 'purge'), actorOf(request));
  });

  app.post('/api/agents/:name/upgrade', async (request, reply) => {
    const name = nameParam(ctx, request);
    const { to } = parseRequest(AgentUpgradeRequestSchema, request.body === undefined ? {} : objectBody(request));
    await requireHostAuthority(ctx, request, 'agent.upgrade', name, ['agents.install'], HOST_ONLY_WHY);
    const job = await ctx.agents.upgrade(name, to, actorOf(request));
    reply.code(202);
    return { job };
  });

  app.get('/api/agents/:name/activity', async (request): Promise<AgentActivityPayload> => {
    const name = nameParam(ctx, request);
    const limit = limitQuery(request);
    if (!ctx.activity) throw new SystemError('system.unavailable', 'the activity database is not open', { subsystem: 'activity' });
    const page = ctx.activity.query({ actor: agentActor(name), limit });
    const events = page.items.map((row) => {
      const d = row.details as { tool?: string; args?: Record<string, unknown>; gated?: boolean; client_id?: string; error?: { code: string; message: string } };
      // A /v1 request's row carries the gateway's error; a failed or denied tool call's is mcp.tool_failed with its message.
      const error = d.error ?? (row.outcome === 'error' && row.action === 'mcp.tool_call' ? { code: 'mcp.tool_failed', message: row.message } : null);
      return { id: row.id, timestamp: row.ts, tool: d.tool ?? row.action, args: d.args ?? {}, gated: d.gated ?? false, outcome: row.outcome, client_id: d.client_id ?? row.actor, error };
    });
    const hint = events.length === 0 ? `nothing from ${name} yet: its /v1 requests and tool calls appear here (X-Svc-Agent: ${name}, or its agent-${name} token)` : undefined;
    return { agent: name, events, count: events.length, ...(hint && { hint }) };
  });

  app.get('/api/agents/:name/log', async (request): Promise<AgentLogPayload> => {
    const name = nameParam(ctx, request);
    const phase = queryValue(request, 'phase') ?? null;
    if (phase !== null && !PHASE_PATTERN.test(phase)) queryProblem('phase', 'expected a phase name (lowercase letters, digits, "_")');
    const dirs = ctx.agents.dirs(name);
    const path = phase ? join(dirs.stateDir, 'provision-logs', `${phase}.log`) : join(dirs.installDir, 'install.log');
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw new AgentError('agent.not_installed', `${name} has no ${phase ? `log of the phase ${phase}` : 'install log'} (${path})`, { name, path });
      throw error;
    });
    return { agent: name, phase, path, text };
  });
}
