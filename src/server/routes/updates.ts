// /api/updates: which version runs and which one its channel offers (GET check), the channel
// itself ([updates].channel: stable follows the package's `latest` dist-tag, nightly its
// `nightly` tag), and the jobs that apply an update or roll one back (update/service.ts).
// Apply and rollback are host-only (issue 22): they choose the code svc runs next, so a LAN
// client in default mode must not start them. The channel stays open: it installs nothing by
// itself, it only picks which dist-tag of the configured registry a host's `svc update` follows.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gt } from 'semver';
import { withSvcToml } from '../../config/load.js';
import { errorsOf, formatProblem } from '../../config/problems.js';
import { updateSvcToml } from '../../config/settings.js';
import { ConfigError } from '../../protocol/errors.js';
import { ApplyUpdateRequestSchema, CHANNEL_TAG, PutChannelRequestSchema, type UpdateCheckPayload } from '../../protocol/updates.js';
import { PACKAGE_NAME } from '../../lib/version.js';
import { parseRequest } from '../../protocol/validate.js';
import { registryUrl } from '../../lib/npm.js';
import { packageInfo } from '../../update/npm-registry.js';
import type { ServerContext } from '../context.js';
import { requireHostAuthority } from '../host-authority.js';
import { actorOf, objectBody } from '../request.js';

const VERSIONS_SHOWN = 20;

export function registerUpdateRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/updates/check', async (): Promise<UpdateCheckPayload> => {
    const registry = registryUrl();
    const channel = ctx.config.svc.updates.channel;
    const info = await packageInfo(registry, PACKAGE_NAME);
    const latest = info.distTags[CHANNEL_TAG[channel]] ?? null;
    return {
      package: PACKAGE_NAME,
      registry,
      current: ctx.version,
      channel,
      published: info.published,
      latest,
      update_available: latest !== null && gt(latest, ctx.version),
      versions: info.versions.slice(0, VERSIONS_SHOWN),
    };
  });

  app.get('/api/updates/state', async () => (await ctx.updates()).state());

  app.post('/api/updates/apply', async (request: FastifyRequest, reply: FastifyReply) => {
    const body = parseRequest(ApplyUpdateRequestSchema, request.body === undefined ? {} : objectBody(request));
    await refuseUnlessHost(ctx, request, 'update.apply', body.version ?? 'latest');
    return reply.code(202).send(await (await ctx.updates()).apply(body, actorOf(request)));
  });

  app.post('/api/updates/rollback', async (request: FastifyRequest, reply: FastifyReply) => {
    await refuseUnlessHost(ctx, request, 'update.rollback', 'previous');
    return reply.code(202).send(await (await ctx.updates()).rollback(actorOf(request)));
  });

  app.get('/api/updates/status/:id', async (request: FastifyRequest<{ Params: { id: string } }>) => (await ctx.updates()).status(request.params.id));

  app.get('/api/updates/channel', async () => ({ channel: ctx.config.svc.updates.channel }));

  app.put('/api/updates/channel', async (request: FastifyRequest) => {
    const { channel } = parseRequest(PutChannelRequestSchema, objectBody(request));
    const before = ctx.config.svc.updates.channel;
    const result = await ctx.configWrites.run(() => updateSvcToml(ctx.paths, { updates: { channel } }, () => [], false));
    if (!result.ok) throw new ConfigError('config.invalid', `channel not saved: ${errorsOf(result.problems).map(formatProblem).join('; ')}`, { problems: result.problems });
    ctx.replaceConfig(withSvcToml(ctx.config, result.after));
    if (before !== channel) {
      ctx.record({ action: 'settings.update', target: 'svc.toml', actor: actorOf(request), details: { changes: { 'updates.channel': { before, after: channel } } } });
      ctx.events.publish({ type: 'settings.changed', source: 'settings', message: 'settings changed: updates.channel', data: { keys: ['updates.channel'] } });
    }
    return { channel };
  });
}

/** 403 config.host_only (details.keys: the route) and a refusal row, for a client without host authority. */
function refuseUnlessHost(ctx: ServerContext, request: FastifyRequest, action: 'update.apply' | 'update.rollback', target: string): Promise<void> {
  const route = `${request.method} ${request.routeOptions.url}`;
  return requireHostAuthority(ctx, request, action, target, [route], `${action === 'update.apply' ? 'an update installs' : 'a rollback switches'} the code svc runs next (run \`svc update\` on the host)`);
}
