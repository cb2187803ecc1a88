// /api/settings: read, deep-merged write, schema, apply plan and reload of svc.toml.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadConfig, withSvcToml } from '../../config/load.js';
import type { ConfigProblem } from '../../config/problems.js';
import { formatProblem } from '../../config/problems.js';
import { SvcTomlSchema, type SvcToml } from '../../config/schema/svc-toml.js';
import { applyPlan, describeSettings, updateSvcToml } from '../../config/settings.js';
import { ConfigError } from '../../protocol/errors.js';
import { actorOf, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { hostAuthority } from '../host-authority.js';

function invalid(problems: readonly ConfigProblem[], what: string): ConfigError {
  const lines = problems.map(formatProblem);
  return new ConfigError('config.invalid', `${what}: ${lines.join('; ')}`, {
    problems: problems.map(({ file, path, message }) => ({ file, path, message })),
  });
}

/** Read a dotted key out of a settings object. */
function valueAt(settings: SvcToml, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), settings);
}

export function registerSettingsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Described on first use: walking the settings' JSON schema takes ~15 ms, kept out of start-up.
  let described: ReturnType<typeof describeSettings> | undefined;
  const descriptions = () => (described ??= describeSettings(ctx.paths));

  app.get('/api/settings', async () => ({
    settings: ctx.config.svc,
    file: ctx.paths.svcToml,
    env_overrides: envOverrides(ctx),
  }));

  app.put('/api/settings', async (request) => {
    const patch = objectBody(request);
    const mayChangeHostOnly = await hostAuthority(ctx, request);
    let result: Awaited<ReturnType<typeof updateSvcToml>>;
    try {
      result = await ctx.configWrites.run(() => updateSvcToml(ctx.paths, patch, () => extractionSlotRule(ctx, patch), mayChangeHostOnly));
    } catch (error) {
      // A refused host-only change is worth a row: someone off this host tried to name a program.
      if (error instanceof ConfigError && error.code === 'config.host_only') {
        ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), outcome: 'error', details: { refused: error.details.keys, client: request.socket.remoteAddress ?? null } });
      }
      throw error;
    }
    if (!result.ok) {
      ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), outcome: 'error', details: { problems: result.problems.map(formatProblem) } });
      throw invalid(result.problems, 'settings not saved');
    }
    ctx.replaceConfig(withSvcToml(ctx.config, result.after));
    const changes = Object.fromEntries(result.changed.map((key) => [key, { before: valueAt(result.before, key), after: valueAt(result.after, key) }]));
    ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), details: { changes } });
    if (result.changed.length > 0) {
      // Keys only: values may be secrets, and the activity event carries them redacted.
      ctx.events.publish({ type: 'settings.changed', source: 'settings', message: `settings changed: ${result.changed.join(', ')}`, data: { keys: result.changed } });
    }
    return { settings: ctx.config.svc, changed: result.changed, apply: applyPlan(descriptions(), result.changed) };
  });

  app.get('/api/settings/schema', async () => ({
    keys: descriptions(),
    json_schema: z.toJSONSchema(SvcTomlSchema, { io: 'input', unrepresentable: 'any' }),
  }));

  app.get('/api/settings/apply-plan', async (request) => {
    const keys = (request.query as Record<string, unknown>).keys;
    return applyPlan(descriptions(), typeof keys === 'string' && keys ? keys.split(',') : undefined);
  });

  app.post('/api/settings/reload', async (request) => {
    const outcome = await ctx.configWrites.run(() => loadConfig(ctx.paths));
    if (!outcome.ok) {
      ctx.record({ action: 'settings.reload', actor: actorOf(request), outcome: 'error', details: { problems: outcome.problems.map(formatProblem) } });
      throw invalid(outcome.problems.filter((p) => p.severity === 'error'), 'configuration not reloaded; the running configuration stays');
    }
    ctx.replaceConfig(outcome.config);
    await ctx.supervisor.reconcile();
    ctx.record({ action: 'settings.reload', actor: actorOf(request), details: { slots: outcome.config.slots.length } });
    const slots = outcome.config.slots.map((s) => s.name);
    const warnings = outcome.problems.length;
    ctx.events.publish({ type: 'config.reloaded', source: 'settings', severity: warnings > 0 ? 'warn' : 'info', message: `configuration reloaded: ${slots.length} slot(s), ${warnings} warning(s)`, data: { slots, warnings } });
    return { reloaded: true, warnings: outcome.problems.map(formatProblem), slots: outcome.config.slots.map((s) => s.name) };
  });
}

/** [memory.graph].extraction_slot is checked at set time against the enabled llm slots. */
function extractionSlotRule(ctx: ServerContext, patch: Record<string, unknown>): ConfigProblem[] {
  const wanted = (patch.memory as { graph?: { extraction_slot?: unknown } } | undefined)?.graph?.extraction_slot;
  if (typeof wanted !== 'string') return []; // absent, reset (null), or a type error the schema reports
  const llmSlots = ctx.config.slots.filter((s) => s.config.slot.type === 'llm' && s.config.slot.enabled).map((s) => s.name);
  if (llmSlots.includes(wanted)) return [];
  return [{
    file: 'svc.toml',
    path: 'memory.graph.extraction_slot',
    message: `expected an enabled llm slot (${llmSlots.length ? `one of ${llmSlots.join(', ')}` : 'none is configured'}); got "${wanted}"`,
    severity: 'error',
  }];
}

function envOverrides(ctx: ServerContext): Array<{ key: string; env: string; value: unknown }> {
  const { env } = ctx.config;
  const out: Array<{ key: string; env: string; value: unknown }> = [];
  if (env.modelStore !== undefined) out.push({ key: 'models.store', env: 'SVC_MODEL_STORE', value: env.modelStore });
  if (env.activityRetentionDays !== undefined) out.push({ key: 'activity.retention_days', env: 'SVC_ACTIVITY_RETENTION_DAYS', value: env.activityRetentionDays });
  return out;
}
