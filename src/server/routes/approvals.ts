// /api/agent/approvals: the queue of gated tool calls (docs/api.md, "Approvals"). A gated
// call waits in the tool server service's queue (src/mcp); here it is listed, approved or
// denied (by the request's actor), and streamed as server-sent events.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApprovalListPayload } from '../../protocol/mcp.js';
import type { ServerContext } from '../context.js';
import { streamApprovalEvents } from '../mcp-streams.js';
import { actorOf } from '../request.js';

const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

export function registerApprovalRoutes(app: FastifyInstance, ctx: ServerContext): void {
  const pending = () => ctx.mcp.listApprovals().filter((entry) => entry.state === 'pending');

  app.get('/api/agent/approvals', async (): Promise<ApprovalListPayload> => ({ approvals: pending() }));

  // approve() answers once the decision is recorded; the waiting call then runs.
  app.post('/api/agent/approvals/:id/approve', async (request) => ({ approval: await ctx.mcp.approve(idOf(request), actorOf(request)) }));
  app.post('/api/agent/approvals/:id/deny', async (request) => ({ approval: await ctx.mcp.deny(idOf(request), actorOf(request)) }));

  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of [...streams]) end();
  });
  app.get('/api/agent/approvals/events', async (_request, reply) => streamApprovalEvents(ctx, reply, streams, pending));
}
