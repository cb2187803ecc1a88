// /api/events: the event bus over HTTP (docs/api.md, "Events"). GET /api/events is a page
// for polling; GET /api/events/stream is server-sent events that replay from an id and then
// tail live, with back-pressure (../event-tail.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseEventQuery, type EventQuery } from '../../events/query.js';
import { EventsError } from '../../protocol/errors.js';
import type { SvcEvent } from '../../protocol/events.js';
import { eventVisibleTo } from '../../auth/event-visibility.js';
import type { ServerContext } from '../context.js';
import { identityOf } from '../request.js';
import { tailEvents } from '../event-tail.js';

function eventQuery(request: FastifyRequest, withHeader: boolean): EventQuery {
  const header = withHeader ? request.headers['last-event-id'] : undefined;
  const parsed = parseEventQuery(request.query as Record<string, unknown>, typeof header === 'string' ? header : undefined);
  if ('problems' in parsed) {
    const { problems } = parsed;
    throw new EventsError('events.invalid_query', `invalid query: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems });
  }
  return parsed.query;
}

/** Each event is serialized once, however many streams send it. */
const frames = new WeakMap<SvcEvent, string>();
function frame(event: SvcEvent): string {
  let text = frames.get(event);
  if (text === undefined) {
    // The id line makes EventSource resume after this event (Last-Event-ID) when it reconnects.
    text = `id: ${event.id}\ndata: ${JSON.stringify(event)}\n\n`;
    if (event.type !== 'events.gap') frames.set(event, text);
  }
  return text;
}

export function registerEventRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/events', async (request) => {
    const { since, filter, limit } = eventQuery(request, false);
    const page = ctx.events.page({ ...(since !== undefined && { since }), filter, limit });
    const identity = identityOf(request);
    return { ...page, events: page.events.filter((event) => eventVisibleTo(event, identity, ctx.config.env.authEnabled)) };
  });

  const streams = new Set<() => void>();
  // An open stream would hold a graceful shutdown until its grace period ends.
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });

  app.get('/api/events/stream', async (request, reply) => {
    const query = eventQuery(request, true);
    const identity = identityOf(request);
    streamEvents(ctx, query, reply, streams, (event) => eventVisibleTo(event, identity, ctx.config.env.authEnabled));
  });
}

function streamEvents(ctx: ServerContext, query: EventQuery, reply: FastifyReply, streams: Set<() => void>, visible: (event: SvcEvent) => boolean): void {
  tailEvents(ctx, reply, streams, {
    subscribe: { ...(query.since !== undefined && { since: query.since }), filter: query.filter },
    head: () => `: svc events, epoch ${ctx.events.epoch}\n\n`,
    render: (batch) => batch.filter(visible).map(frame).join(''),
  });
}
