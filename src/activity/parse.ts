// Validation of the activity listing's query string. Every parameter is checked and every
// problem reported at once, so a caller fixes a bad URL in one round trip, not several.
import { describeValue } from '../config/problems.js';
import { SORT_KEYS, cursorMismatch, decodeCursor } from './cursor.js';
import type { ActivityQuery, QueryProblem } from './types.js';
import { MAX_LIMIT } from './types.js';

const KINDS = ['action', 'event'] as const;
const OUTCOMES = ['ok', 'error'] as const;
const ORDERS = ['asc', 'desc'] as const;
// Date-only, or date and time with an explicit offset: a bare local time would mean
// whatever the server's time zone is, which the caller cannot see.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/i;

interface Reader {
  readonly raw: Record<string, unknown>;
  readonly problems: QueryProblem[];
}

function fail(reader: Reader, path: string, expected: string): undefined {
  reader.problems.push({ path, message: `expected ${expected}; got ${describeValue(reader.raw[path])}` });
  return undefined;
}

/** A parameter's text; absent and empty both mean "not given". */
function readText(reader: Reader, name: string): string | undefined {
  const value = reader.raw[name];
  if (value === undefined || value === '') return undefined;
  // A repeated parameter arrives as an array: ambiguous, so refuse rather than pick one.
  return typeof value === 'string' ? value : fail(reader, name, 'a single text value');
}

function readChoice<T extends string>(reader: Reader, name: string, choices: readonly T[]): T | undefined {
  const value = readText(reader, name);
  if (value === undefined || (choices as readonly string[]).includes(value)) return value as T | undefined;
  return fail(reader, name, `one of ${choices.join(', ')}`);
}

/** The timestamp in the UTC millisecond form rows are stored in, so text comparison orders by time. */
function readTimestamp(reader: Reader, name: string): string | undefined {
  const value = readText(reader, name);
  if (value === undefined) return undefined;
  const millis = ISO_TIMESTAMP.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(millis)) return fail(reader, name, 'an ISO-8601 timestamp such as 2024-05-01T12:00:00Z');
  return new Date(millis).toISOString();
}

function readLimit(reader: Reader): number | undefined {
  const value = readText(reader, 'limit');
  if (value === undefined) return undefined;
  const limit = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  return limit >= 1 && limit <= MAX_LIMIT ? limit : fail(reader, 'limit', `an integer from 1 to ${MAX_LIMIT}`);
}

/** The cursor, checked against the ordering it will continue; `orderingKnown` is false when sort or order was bad. */
function readCursor(reader: Reader, query: ActivityQuery, orderingKnown: boolean): string | undefined {
  const cursor = readText(reader, 'cursor');
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (!position) return fail(reader, 'cursor', 'a next_cursor value from an earlier page');
  const mismatch = orderingKnown ? cursorMismatch(position, query.sort ?? 'ts', query.order ?? 'desc') : undefined;
  if (mismatch) {
    reader.problems.push({ path: 'cursor', message: mismatch });
    return undefined;
  }
  return cursor;
}

function withoutUndefined(query: ActivityQuery): ActivityQuery {
  return Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined)) as ActivityQuery;
}

/** Validates query-string input (values arrive as strings) into an ActivityQuery, or lists every problem. */
export function parseActivityQuery(raw: Record<string, unknown>): { query: ActivityQuery } | { problems: QueryProblem[] } {
  const reader: Reader = { raw, problems: [] };
  const query: ActivityQuery = {
    action: readText(reader, 'action'),
    target: readText(reader, 'target'),
    actor: readText(reader, 'actor'),
    kind: readChoice(reader, 'kind', KINDS),
    outcome: readChoice(reader, 'outcome', OUTCOMES),
    since: readTimestamp(reader, 'since'),
    until: readTimestamp(reader, 'until'),
    sort: readChoice(reader, 'sort', SORT_KEYS),
    order: readChoice(reader, 'order', ORDERS),
    limit: readLimit(reader),
  };
  const orderingKnown = !reader.problems.some((p) => p.path === 'sort' || p.path === 'order');
  query.cursor = readCursor(reader, query, orderingKnown);
  if (query.since !== undefined && query.until !== undefined && query.since >= query.until) {
    reader.problems.push({ path: 'until', message: `expected a time after since (${query.since}); got ${query.until}` });
  }
  return reader.problems.length > 0 ? { problems: reader.problems } : { query: withoutUndefined(query) };
}
