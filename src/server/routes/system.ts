// Liveness, status, feature flags and URL hints: the open /api routes.
import type { FastifyInstance } from 'fastify';
import { formatProblem } from '../../config/problems.js';
import { hostSnapshot, readAvailableMemoryMb } from '../../host/memory.js';
import { summarizeSlots, type SlotsSummary } from '../../slots/summary.js';
import type { StatusPayload } from '../../protocol/system.js';
import type { ServerContext } from '../context.js';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { dashboardRoot } from './dashboard.js';
import { maskUrlSecrets } from '../../protocol/url-secrets.js';

/** The summary's slot rows, each with its request metrics (the figures of GET /api/metrics). */
function withMetrics(ctx: ServerContext, summary: SlotsSummary) {
  const now = ctx.metrics.now();
  return { ...summary, slots: summary.slots.map((row) => ({ ...row, metrics: ctx.metrics.snapshot(row.name, now) })) };
}

export function registerSystemRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/health/system', async () => {
    const activityOk = ctx.activity !== undefined;
    return {
      status: activityOk ? 'ok' : 'degraded',
      version: ctx.version,
      uptime_s: ctx.uptimeSeconds(),
      checks: {
        config: { ok: true, warnings: ctx.config.warnings.length },
        activity_db: { ok: activityOk, path: ctx.paths.activityDb },
      },
      host: hostSnapshot(),
    };
  });

  app.get('/api/status', async (): Promise<StatusPayload> => {
    const config = ctx.config;
    const views = ctx.supervisor.list();
    return {
      version: ctx.version,
      uptime_s: ctx.uptimeSeconds(),
      started_at: ctx.startedAt.toISOString(),
      config_root: ctx.paths.configRoot,
      state_root: ctx.paths.stateRoot,
      home_source: ctx.paths.source,
      listen: ctx.listening,
      auth_enabled: config.env.authEnabled,
      // A warning may quote a value; a URL's password in it stays masked.
      config_warnings: config.warnings.map((problem) => maskUrlSecrets(formatProblem(problem))),
      slots: withMetrics(ctx, summarizeSlots(views)),
      gpu: ctx.arbiter.view(),
      // What a peer gateway balances by (docs/scaling.md).
      load: { in_flight: views.reduce((sum, v) => sum + v.in_flight, 0), free_memory_mib: await readAvailableMemoryMb() },
    };
  });

  app.get('/api/features', async () => {
    const { svc, env } = ctx.config;
    return {
      auth_enabled: env.authEnabled,
      activity_log: svc.activity.enabled,
      telemetry: svc.telemetry.enabled,
      update_channel: svc.updates.channel,
      memory_engine: svc.memory.engine,
      memory_graph: svc.memory.graph.enabled,
      // Whether the dashboard's build is there to serve (npm run build writes it).
      dashboard: await access(join(dashboardRoot(), 'index.html')).then(() => true, () => false),
    };
  });

  app.get('/api/config/urls', async (request) => {
    const base = `${request.protocol}://${request.host}`;
    return {
      api: `${base}/api`,
      v1: `${base}/v1`,
      dashboard: `${base}/`,
      chat: `${request.protocol}://${request.hostname}:3001/`,
      openai_base_url: `${base}/v1`,
    };
  });
}
