// The approvals queue as the whole app sees it: one query of the pending calls
// (GET /api/agent/approvals), kept current by the event stream's approval.* events, so the
// nav's count and the Tool servers page's panel agree and nothing polls.
import { queryOptions } from '@tanstack/react-query';
import type { ApprovalEntry, ApprovalListPayload } from '../../src/protocol/mcp.js';
import { getJson } from './api-error.js';

export const approvalsQuery = queryOptions({
  queryKey: ['approvals'],
  queryFn: ({ signal }) => getJson<ApprovalListPayload>('/api/agent/approvals', signal),
});

/**
 * The pending list after an entry's news: a pending entry is added or replaced (a joined
 * duplicate raises its hit count), any other state takes it off. Oldest first, as enqueued.
 */
export function foldApproval(list: readonly ApprovalEntry[], entry: ApprovalEntry): ApprovalEntry[] {
  const others = list.filter((item) => item.id !== entry.id);
  if (entry.state !== 'pending') return others;
  return [...others, entry].sort((a, b) => a.enqueued_at.localeCompare(b.enqueued_at));
}
