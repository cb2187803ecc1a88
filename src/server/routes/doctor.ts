// GET /api/doctor: the preflight battery of `svc doctor` (src/doctor/checks.ts), run by the
// gateway on this home with the port it listens on, so the dashboard can show it. Its own
// port is held by this gateway, which the battery counts as ours, not as a conflict.
import type { FastifyInstance } from 'fastify';
import { runDoctor } from '../../doctor/checks.js';
import type { DoctorPayload } from '../../protocol/doctor-wire.js';
import type { ServerContext } from '../context.js';

export function registerDoctorRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/doctor', async (): Promise<DoctorPayload> => {
    const checks = await runDoctor({ paths: ctx.paths, apiPort: ctx.listening.port, extraPorts: [], env: process.env, self: { pid: process.pid, url: `http://${ctx.listening.host}:${ctx.listening.port}` } });
    const failed = checks.filter((c) => c.status === 'fail').length;
    const warnings = checks.filter((c) => c.status === 'warn').length;
    return { ok: failed === 0, failed, warnings, checks };
  });
}
