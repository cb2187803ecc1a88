// GET /api/activity: the activity log, filtered, with keyset pagination.
import type { FastifyInstance } from 'fastify';
import { foldInbox } from '../../activity/inbox.js';
import { parseActivityQuery } from '../../activity/query.js';
import type { ActivityPage } from '../../protocol/activity-wire.js';
import { RequestError, SystemError } from '../../protocol/errors.js';
import type { ServerContext } from '../context.js';

export function registerActivityRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/activity', async (request): Promise<ActivityPage> => {
    if (!ctx.activity) throw new SystemError('system.unavailable', 'The activity database could not be opened; see the server log.', { path: ctx.paths.activityDb });
    const parsed = parseActivityQuery(request.query as Record<string, unknown>);
    if ('problems' in parsed) {
      throw new RequestError('request.invalid', `invalid query: ${parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: parsed.problems });
    }
    // Rows the CLI left since (activity/inbox.ts) are in the log before it is read.
    await foldInbox(ctx.paths.stateRoot, ctx.activity);
    return ctx.activity.query(parsed.query);
  });
}
