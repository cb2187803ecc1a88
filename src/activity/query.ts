// Listing the activity log: SQL building and page assembly, pure functions with no database.
// Column names reach SQL only through SORT_COLUMNS, so no input text is ever spliced into
// a statement; every value travels as a bound parameter.
import type { SortKey } from './cursor.js';
import { cursorMismatch, decodeCursor, encodeCursor } from './cursor.js';
import type { ActivityPage, ActivityQuery, StoredActivityRow } from './types.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './types.js';

export { parseActivityQuery } from './parse.js';
export type {
  ActivityKind, ActivityPage, ActivityQuery, ActivityRow, QueryProblem, SortKey, SortOrder, StoredActivityRow,
} from './types.js';
export { DEFAULT_LIMIT, MAX_LIMIT } from './types.js';

const SORT_COLUMNS: Record<SortKey, string> = { ts: 'ts', action: 'action', target: 'target' };
const SELECT_COLUMNS = 'id, ts, kind, action, target, actor, outcome, message, details, request_id';

function orderingOf(query: ActivityQuery) {
  const limit = Math.min(MAX_LIMIT, Math.max(1, Math.trunc(query.limit ?? DEFAULT_LIMIT)));
  return { sort: query.sort ?? 'ts', order: query.order ?? 'desc', limit } as const;
}

type Clause = [sql: string, ...params: unknown[]];

function actionClause(action: string): Clause {
  if (!action.endsWith('.*')) return ['action = ?', action];
  const prefix = action.slice(0, -1);
  // A comparison, not LIKE, so `_` and `%` in the prefix stay literal. substr counts
  // characters (code points), so the length is counted the same way, not in UTF-16 units.
  return ['substr(action, 1, ?) = ?', [...prefix].length, prefix];
}

function filterClauses(query: ActivityQuery): Clause[] {
  const clauses: Clause[] = [];
  if (query.action !== undefined) clauses.push(actionClause(query.action));
  if (query.target !== undefined) clauses.push(['target = ?', query.target]);
  if (query.actor !== undefined) clauses.push(['actor = ?', query.actor]);
  if (query.kind !== undefined) clauses.push(['kind = ?', query.kind]);
  if (query.outcome !== undefined) clauses.push(['outcome = ?', query.outcome]);
  if (query.since !== undefined) clauses.push(['ts >= ?', query.since]);
  if (query.until !== undefined) clauses.push(['ts < ?', query.until]);
  return clauses;
}

function cursorClause(cursor: string, query: ActivityQuery): Clause {
  const { sort, order } = orderingOf(query);
  const position = decodeCursor(cursor);
  const problem = position ? cursorMismatch(position, sort, order) : 'malformed cursor';
  if (!position || problem) throw new Error(`activity query: ${problem}`);
  // The id tiebreak makes the ordering total, so rows sharing a sort value are neither
  // skipped nor repeated at a page boundary.
  const comparison = order === 'desc' ? '<' : '>';
  return [`(${SORT_COLUMNS[sort]}, id) ${comparison} (?, ?)`, position.lastValue, position.lastId];
}

/**
 * The SELECT for one page. It asks for limit+1 rows: the extra row only tells whether a
 * next page exists. Throws on a cursor that parseActivityQuery would have rejected.
 */
export function buildActivitySql(query: ActivityQuery): { sql: string; params: unknown[] } {
  const { sort, order, limit } = orderingOf(query);
  const clauses = filterClauses(query);
  if (query.cursor !== undefined) clauses.push(cursorClause(query.cursor, query));
  const where = clauses.length > 0 ? ` WHERE ${clauses.map(([sql]) => sql).join(' AND ')}` : '';
  const direction = order === 'desc' ? 'DESC' : 'ASC';
  const column = SORT_COLUMNS[sort];
  return {
    sql: `SELECT ${SELECT_COLUMNS} FROM activity${where} ORDER BY ${column} ${direction}, id ${direction} LIMIT ?`,
    params: [...clauses.flatMap(([, ...params]) => params), limit + 1],
  };
}

/** Turns the limit+1 rows fetched by buildActivitySql into a page and its next cursor. */
export function toActivityPage(rows: readonly StoredActivityRow[], query: ActivityQuery): ActivityPage {
  const { sort, order, limit } = orderingOf(query);
  const items = rows.slice(0, limit).map((row) => ({ ...row, details: parseDetails(row.details) }));
  const last = items[items.length - 1];
  const hasMore = rows.length > limit && last !== undefined;
  return {
    items,
    next_cursor: hasMore ? encodeCursor({ sort, order, lastValue: last[sort], lastId: last.id }) : null,
  };
}

function parseDetails(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    // Only a hand-edited row could hold bad JSON; one such row must not break the listing.
    return {};
  }
}
