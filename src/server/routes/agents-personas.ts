// Personas of a daemon agent over HTTP (docs/api.md "Agents", docs/agents.md "Personas"):
// list, show, activate (active.txt written atomically, then the hot-reload nudge, whose
// failure is reported, not fatal) and the budget. The persona id is checked before any file
// is touched: one with a dot or a slash is agent.persona_invalid.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { agentDirs } from '../../config/agent-paths.js';
import { activatePersona, checkPersonaId, DEFAULT_RELOAD_URL, listPersonas, PersonaBudgetSchema, putBudget, readPersona } from '../../agents/personas.js';
import { isLoopbackAddress } from '../../lib/addresses.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody } from '../request.js';
import { provisionedAgent } from './agents-hermes.js';

export const ActivateBodySchema = z.strictObject({
  // The nudge goes to the agent on this host only: a URL elsewhere would make svc post to any
  // host. A loopback URL reaches this host's services, so choosing one is the host's alone.
  reload_url: z.url({ protocol: /^https?$/ }).refine((url) => isLoopbackAddress(new URL(url).hostname.replace(/^\[|\]$/g, '')) || new URL(url).hostname === 'localhost', 'must be a loopback URL (127.0.0.1, ::1 or localhost)').optional(),
});

function target(ctx: ServerContext, request: FastifyRequest): { agent: string; home: string; persona: string } {
  const agent = provisionedAgent(request, 'id');
  const persona = checkPersonaId((request.params as { pid: string }).pid);
  return { agent, home: agentDirs(ctx.paths, agent).dataDir, persona };
}

export function registerPersonaRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/agents/:id/personas', async (request) => {
    const agent = provisionedAgent(request, 'id');
    const { personas, active } = await listPersonas(agentDirs(ctx.paths, agent).dataDir);
    return { agent, personas, active, count: personas.length };
  });

  app.get('/api/agents/:id/personas/:pid', async (request) => {
    const { home, persona } = target(ctx, request);
    return { persona: await readPersona(home, persona) };
  });

  app.post('/api/agents/:id/personas/:pid/activate', async (request) => {
    const { agent, home, persona } = target(ctx, request);
    const body = parseRequest(ActivateBodySchema, request.body === undefined || request.body === null ? {} : objectBody(request));
    await requireHostAuthority(ctx, request, 'agent.persona.activate', `${agent}/${persona}`, body.reload_url === undefined ? [] : ['reload_url'], 'a reload URL makes svc post to a service on this host');
    const result = await activatePersona(home, persona, body.reload_url ?? DEFAULT_RELOAD_URL);
    ctx.events.publish({ type: 'agent.persona_activated', source: `agent:${agent}`, severity: result.hot_reload.ok ? 'info' : 'warn', message: `persona ${persona} active for ${agent}${result.hot_reload.ok ? '' : ` (reload nudge failed: ${result.hot_reload.error})`}`, data: { agent, persona, hot_reload_ok: result.hot_reload.ok } });
    ctx.record({ action: 'agent.persona.activate', actor: actorOf(request), target: `${agent}/${persona}`, details: { hot_reload: result.hot_reload } });
    return result;
  });

  app.get('/api/agents/:id/personas/:pid/budget', async (request) => {
    const { home, persona } = target(ctx, request);
    return { persona_id: persona, budget: (await readPersona(home, persona)).budget };
  });

  app.put('/api/agents/:id/personas/:pid/budget', async (request) => {
    const { agent, home, persona } = target(ctx, request);
    const budget = parseRequest(PersonaBudgetSchema, objectBody(request));
    const saved = await putBudget(home, persona, budget);
    ctx.record({ action: 'agent.persona.budget', actor: actorOf(request), target: `${agent}/${persona}`, details: { ...saved } });
    return { persona_id: persona, budget: saved };
  });
}
