// /api/settings: read, deep-merged write, schema, apply plan and reload of svc.toml.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { loadConfig, withSvcToml } from '../../config/load.js';
import type { ConfigProblem } from '../../config/problems.js';
import { formatProblem } from '../../config/problems.js';
import { SvcTomlSchema } from '../../config/schema/svc-toml.js';
import { applyPlan, describeSettings, updateSvcToml } from '../../config/settings.js';
import { envOverrides, extractionSlotRule, settingsChanges } from '../../config/settings-edit.js';
import { ConfigError } from '../../protocol/errors.js';
import { maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import { boundProblems, listProblems } from '../../protocol/input-bounds.js';
import type { ApplyPlan, SettingsPayload, SettingsReloadPayload, SettingsSchemaPayload, SettingsUpdatePayload } from '../../protocol/settings-wire.js';
import { actorOf, objectBody } from '../request.js';
import type { ServerContext } from '../context.js';
import { hostAuthority } from '../host-authority.js';
import { withSelfUrl } from '../self-url.js';

function invalid(problems: readonly ConfigProblem[], what: string): ConfigError {
  return new ConfigError('config.invalid', `${what}: ${listProblems(problems, formatProblem)}`, boundProblems(problems.map(({ file, path, message }) => ({ file, path, message }))));
}

/** An activity row's problems: as many as an answer lists, and the count of the rest. */
function recordedProblems(problems: readonly ConfigProblem[]): { problems: string[]; problems_omitted?: number } {
  return boundProblems(problems.map(formatProblem)) as { problems: string[]; problems_omitted?: number };
}

export function registerSettingsRoutes(app: FastifyInstance, ctx: ServerContext): void {
  // Described on first use: walking the settings' JSON schema takes ~15 ms, kept out of start-up.
  let described: ReturnType<typeof describeSettings> | undefined;
  const descriptions = () => (described ??= describeSettings(ctx.paths));

  // URL passwords come back masked (protocol/url-secrets.ts); a PUT of the masked form keeps them.
  app.get('/api/settings', async (): Promise<SettingsPayload> => ({
    settings: maskUrlSecretsIn(withSelfUrl(ctx.config.svc, ctx.listening)),
    file: ctx.paths.svcToml,
    env_overrides: maskUrlSecretsIn(envOverrides(ctx.config)),
  }));

  app.put('/api/settings', async (request): Promise<SettingsUpdatePayload> => {
    const patch = objectBody(request);
    const mayChangeHostOnly = await hostAuthority(ctx, request);
    let result: Awaited<ReturnType<typeof updateSvcToml>>;
    try {
      result = await ctx.configWrites.run(() => updateSvcToml(ctx.paths, patch, () => extractionSlotRule(ctx.config, patch), mayChangeHostOnly));
    } catch (error) {
      // A refused host-only change is worth a row: someone off this host tried to name a program.
      if (error instanceof ConfigError && error.code === 'config.host_only') {
        ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), outcome: 'error', details: { refused: error.details.keys, client: request.socket.remoteAddress ?? null } });
      }
      throw error;
    }
    if (!result.ok) {
      ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), outcome: 'error', details: recordedProblems(result.problems) });
      throw invalid(result.problems, 'settings not saved');
    }
    ctx.replaceConfig(withSvcToml(ctx.config, result.after));
    const changes = settingsChanges(result.before, result.after, result.changed);
    ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), details: { changes } });
    if (result.changed.length > 0) {
      // Keys only: values may be secrets, and the activity event carries them redacted.
      ctx.events.publish({ type: 'settings.changed', source: 'settings', message: `settings changed: ${result.changed.join(', ')}`, data: { keys: result.changed } });
    }
    return { settings: maskUrlSecretsIn(withSelfUrl(ctx.config.svc, ctx.listening)), changed: result.changed, apply: applyPlan(descriptions(), result.changed) };
  });

  app.get('/api/settings/schema', async (): Promise<SettingsSchemaPayload> => ({
    keys: descriptions(),
    json_schema: z.toJSONSchema(SvcTomlSchema, { io: 'input', unrepresentable: 'any' }),
  }));

  app.get('/api/settings/apply-plan', async (request): Promise<ApplyPlan> => {
    const keys = (request.query as Record<string, unknown>).keys;
    return applyPlan(descriptions(), typeof keys === 'string' && keys ? keys.split(',') : undefined);
  });

  app.post('/api/settings/reload', async (request): Promise<SettingsReloadPayload> => {
    const outcome = await ctx.configWrites.run(() => loadConfig(ctx.paths));
    if (!outcome.ok) {
      ctx.record({ action: 'settings.reload', actor: actorOf(request), outcome: 'error', details: recordedProblems(outcome.problems) });
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
