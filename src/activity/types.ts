// Shapes shared by the activity store, its query builder and the HTTP layer above it.
// Row fields keep their snake_case column names because rows go out on the wire as-is.
import type { ActivityRow } from '../protocol/activity-wire.js';
import type { SortKey, SortOrder } from './cursor.js';

export type { SortKey, SortOrder } from './cursor.js';

export type ActivityKind = 'action' | 'event';
export type ActivityOutcome = 'ok' | 'error';

export interface ActivityQuery {
  action?: string;
  target?: string;
  actor?: string;
  kind?: ActivityKind;
  outcome?: ActivityOutcome;
  since?: string;
  until?: string;
  sort?: SortKey;
  order?: SortOrder;
  limit?: number;
  cursor?: string;
}

// The row and the page are wire types (src/protocol/activity-wire.ts), which the dashboard reads.
export type { ActivityPage, ActivityRow } from '../protocol/activity-wire.js';

/** A row as SQLite returns it: details still JSON text. */
export type StoredActivityRow = Omit<ActivityRow, 'details'> & { details: string };

/** One bad query parameter: `path` is the parameter name. */
export interface QueryProblem {
  path: string;
  message: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
