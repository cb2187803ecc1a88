// The two server-sent event streams of the tool servers: GET /api/mcp/stream (each step of
// each tool call) and GET /api/agent/approvals/events (the approvals queue: a snapshot, then
// each change). Both tail the event bus through a bounded subscription, as
// /api/events/stream does, so a slow client costs an events.gap, not the gateway's memory.
import type { FastifyReply } from 'fastify';
import type { ApprovalEntry, ApprovalEventData } from '../protocol/mcp.js';
import type { SvcEvent } from '../protocol/events.js';
import type { ServerContext } from './context.js';
import { tailEvents } from './event-tail.js';

const TOOL_EVENTS = /^mcp\.tool\./;
const APPROVAL_EVENTS = /^approval\./;

/** A stream that writes `first` at once, then `frame(event)` of each event of `types`. */
function tail(ctx: ServerContext, reply: FastifyReply, ends: Set<() => void>, types: RegExp, first: () => string, frame: (event: SvcEvent) => string): void {
  tailEvents(ctx, reply, ends, { subscribe: { filter: { types } }, head: first, render: (batch) => batch.map(frame).join('') });
}

/** GET /api/mcp/stream: `event: mcp.tool.<outcome>` with the call's step and when it happened. */
export function streamToolEvents(ctx: ServerContext, reply: FastifyReply, ends: Set<() => void>): void {
  tail(ctx, reply, ends, TOOL_EVENTS, () => ': svc tool calls\n\n', (event) => {
    if (event.type === 'events.gap') return `event: events.gap\ndata: ${JSON.stringify(event.data)}\n\n`;
    return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...(event.data as object), ts: event.ts })}\n\n`;
  });
}

const message = (data: ApprovalEventData) => `data: ${JSON.stringify(data)}\n\n`;

/** The kind of an approval event: enqueued, or the state its entry was resolved to. */
function approvalKind(event: SvcEvent): ApprovalEventData['kind'] | undefined {
  if (event.type === 'approval.enqueued') return 'enqueued';
  if (event.type !== 'approval.resolved') return undefined;
  const state = (event.data as { entry: ApprovalEntry }).entry.state;
  return state === 'pending' ? undefined : state;
}

/** GET /api/agent/approvals/events: `{kind: snapshot, entries}` first, then `{kind, entry}` per change. */
export function streamApprovalEvents(ctx: ServerContext, reply: FastifyReply, ends: Set<() => void>, pending: () => ApprovalEntry[]): void {
  tail(ctx, reply, ends, APPROVAL_EVENTS, () => message({ kind: 'snapshot', entries: pending() }), (event) => {
    const kind = approvalKind(event);
    if (kind === undefined) return event.type === 'events.gap' ? message({ kind: 'snapshot', entries: pending() }) : '';
    return message({ kind, entry: (event.data as { entry: ApprovalEntry }).entry });
  });
}
