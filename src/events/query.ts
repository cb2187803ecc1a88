// The query of GET /api/events and /api/events/stream, checked in one pass: every bad
// parameter is reported at once, each under its own name.
import { parseSeverityFilter, parseTypeFilter, type EventFilter } from './filter.js';

export const DEFAULT_PAGE_LIMIT = 200;
export const MAX_PAGE_LIMIT = 1000;

export interface EventQuery {
  since?: number;
  filter: EventFilter;
  limit: number;
}

export interface EventQueryProblem {
  path: string;
  message: string;
}

const ID = /^\d{1,15}$/;

/**
 * `lastEventId` is the Last-Event-ID header of a stream request: an EventSource that
 * reconnects sends it, with the query of its first request, so it wins over `since`.
 */
export function parseEventQuery(query: Record<string, unknown>, lastEventId?: string): { query: EventQuery } | { problems: EventQueryProblem[] } {
  const problems: EventQueryProblem[] = [];
  const value = (key: string): string | undefined => {
    const raw = query[key];
    if (Array.isArray(raw)) problems.push({ path: key, message: 'given more than once' });
    return typeof raw === 'string' && raw !== '' ? raw : undefined;
  };
  const out: EventQuery = { filter: {}, limit: DEFAULT_PAGE_LIMIT };

  const since = lastEventId ?? value('since');
  const sinceName = lastEventId !== undefined ? 'Last-Event-ID' : 'since';
  if (since !== undefined) {
    if (ID.test(since.trim())) out.since = Number(since.trim());
    else problems.push({ path: sinceName, message: `expected an event id (an integer >= 0); got ${JSON.stringify(since)}` });
  }
  const type = value('type');
  if (type !== undefined) {
    const parsed = parseTypeFilter(type);
    if (parsed.ok) out.filter.types = parsed.value;
    else problems.push({ path: 'type', message: parsed.message });
  }
  const severity = value('severity');
  if (severity !== undefined) {
    const parsed = parseSeverityFilter(severity);
    if (parsed.ok) out.filter.severities = parsed.value;
    else problems.push({ path: 'severity', message: parsed.message });
  }
  const limit = value('limit');
  if (limit !== undefined) {
    if (/^\d{1,4}$/.test(limit) && Number(limit) >= 1 && Number(limit) <= MAX_PAGE_LIMIT) out.limit = Number(limit);
    else problems.push({ path: 'limit', message: `expected an integer from 1 to ${MAX_PAGE_LIMIT}; got ${JSON.stringify(limit)}` });
  }
  return problems.length > 0 ? { problems } : { query: out };
}
