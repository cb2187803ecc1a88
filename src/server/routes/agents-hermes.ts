// The hermes provisioning routes (docs/api.md "Agents", docs/agents.md "hermes"):
// POST /api/agents/:name/provision runs the 16 phases (a program on this host: the host-only
// policy applies), GET returns provision.json (the phase logs: GET /api/agents/:name/log?phase=).
// One run per agent at a time.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { runProvision } from '../../agents/hermes/driver.js';
import { agentDirs } from '../../config/agent-paths.js';
import { readProvision } from '../../agents/hermes/provision.js';
import { BUNDLED_AGENTS, isAgentName } from '../../agents/names.js';
import { SvcError } from '../../protocol/errors.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { gatewayWiring } from '../agent-wiring.js';
import { hermesLoans } from '../hermes-loans.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody } from '../request.js';
import { own } from '../../lib/own.js';

export const ProvisionBodySchema = z.strictObject({
  repair: z.boolean().default(false),
  skip_phases: z.array(z.string()).default([]),
  dry_run: z.boolean().default(false),
  offline: z.boolean().default(false),
  adopt: z.boolean().default(false),
  version: z.string().regex(/^[\w.+-]{1,64}$/).optional(),
});

const running = new WeakMap<ServerContext, Set<string>>();

/** The agent of the route: a bundled agent name with a phase machine (hermes), else agent.unknown. */
export function provisionedAgent(request: FastifyRequest, param = 'name'): string {
  const name = (request.params as Record<string, string>)[param] ?? '';
  if (!isAgentName(name) || own(BUNDLED_AGENTS, name) === undefined) throw new SvcError('agent.unknown', `no bundled agent "${name}" (bundled: ${Object.keys(BUNDLED_AGENTS).join(', ')})`, { agent: name });
  if (name !== 'hermes') throw new SvcError('agent.unknown', `${name} has no provisioning phases or personas: only hermes (a daemon agent) does`, { agent: name });
  return name;
}

export function registerHermesAgentRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/api/agents/:name/provision', async (request) => {
    const name = provisionedAgent(request);
    const body = parseRequest(ProvisionBodySchema, objectBody(request));
    await requireHostAuthority(ctx, request, 'agent.provision', name, ['agent'], 'provisioning an agent runs its runtime on this host');
    const busy = running.get(ctx) ?? new Set<string>();
    running.set(ctx, busy);
    if (busy.has(name)) throw new SvcError('agent.provision_busy', `a provisioning run of ${name} is going on`, { agent: name });
    busy.add(name);
    try {
      const paths = agentDirs(ctx.paths, name);
      const options = { repair: body.repair, skipPhases: body.skip_phases, dryRun: body.dry_run, offline: body.offline, adopt: body.adopt, ...(body.version && { version: body.version }) };
      const result = await runProvision(hermesLoans(ctx), paths, await gatewayWiring(ctx, name), options);
      const failed = result.provision.errors.map((e) => e.phase);
      if (!result.dry_run) {
        ctx.events.publish({ type: 'agent.provisioned', source: `agent:${name}`, severity: result.ok ? 'info' : 'warn', message: result.ok ? `${name} provisioned` : `${name} provisioning failed in ${failed.join(', ')}`, data: { agent: name, ok: result.ok, dry_run: false, failed, hermes_version: result.provision.hermes_version } });
        ctx.record({ action: 'agent.provision', actor: actorOf(request), target: name, outcome: result.ok ? 'ok' : 'error', message: failed.length ? `failed: ${failed.join(', ')}` : 'every phase ok or skipped', details: { repair: body.repair, skip_phases: body.skip_phases, offline: body.offline, adopt: body.adopt, failed } });
      }
      return result;
    } finally {
      busy.delete(name);
    }
  });

  app.get('/api/agents/:name/provision', async (request) => {
    const name = provisionedAgent(request);
    const record = await readProvision(agentDirs(ctx.paths, name).stateDir);
    if (!record) throw new SvcError('agent.not_provisioned', `${name} has no provision.json yet: run svc agent bootstrap ${name}`, { agent: name });
    return record;
  });

}
