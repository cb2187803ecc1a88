// /api/install: first run. GET state says whether setup is due, POST complete writes the
// sentinel, POST apply provisions the slots `svc setup` (and, later, the dashboard's
// first-run wizard) asks for. The work is in src/setup/first-run.ts and provision.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InstallApplyRequestSchema, type InstallApplyPayload } from '../../protocol/install.js';
import { parseRequest } from '../../protocol/validate.js';
import { completeInstall, installState } from '../../setup/first-run.js';
import { provision } from '../../setup/provision.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody } from '../request.js';

export function registerInstallRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/install/state', async () => installState(ctx));

  app.post('/api/install/complete', async (request) => {
    await completeInstall(ctx, actorOf(request));
    return installState(ctx);
  });

  app.post('/api/install/apply', async (request: FastifyRequest): Promise<InstallApplyPayload> => {
    const body = parseRequest(InstallApplyRequestSchema, objectBody(request));
    // It names a directory svc writes into and registers files: a host-only change, as POST /api/models is.
    await requireHostAuthority(ctx, request, 'install.apply', 'setup', ['storage_dir', 'slots'], 'setup writes model files and names host paths');
    return provision(ctx, body, actorOf(request));
  });
}
