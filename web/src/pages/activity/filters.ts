// The Activity page's filters: read from and written to the URL's query (so a filtered view
// can be linked), turned into GET /api/activity parameters, and matched against live
// `activity` events so the tail shows only rows the same query would have returned.
// Pure functions, no React.

export type Outcome = '' | 'ok' | 'error';

export interface ActivityFilters {
  /** An exact action (`slot.load`) or a prefix ending in `.*` (`slot.*`); '' for any. */
  type: string;
  /** The row's outcome: `error` rows are the stream's `warn` events. */
  outcome: Outcome;
  /** A slot's name: rows whose target it is. */
  slot: string;
  /** ISO-8601 UTC instants; '' for open-ended. `until` is exclusive, as the API reads it. */
  since: string;
  until: string;
}

export const NO_FILTERS: ActivityFilters = { type: '', outcome: '', slot: '', since: '', until: '' };

/** The families of actions the log records today (docs/api.md, GET /api/activity), for the type menu. */
export const ACTION_FAMILIES = ['slot', 'model', 'settings', 'config', 'profile', 'stack', 'update', 'auth', 'system', 'gpu', 'hardware', 'install'] as const;

const URL_KEYS = ['type', 'outcome', 'slot', 'since', 'until'] as const;

/** A date-time the API accepts, normalised to UTC; '' for anything else. */
function instant(text: string | null): string {
  if (!text) return '';
  const millis = Date.parse(text);
  return Number.isNaN(millis) ? '' : new Date(millis).toISOString();
}

export function filtersFromSearch(search: string): ActivityFilters {
  const params = new URLSearchParams(search);
  const outcome = params.get('outcome');
  return {
    type: params.get('type')?.trim() ?? '',
    outcome: outcome === 'ok' || outcome === 'error' ? outcome : '',
    slot: params.get('slot')?.trim() ?? '',
    since: instant(params.get('since')),
    until: instant(params.get('until')),
  };
}

/** `?type=slot.*&slot=chat`, only the filters set, in a fixed order ('' when none). */
export function searchOf(filters: ActivityFilters): string {
  const params = new URLSearchParams();
  for (const key of URL_KEYS) if (filters[key]) params.set(key, filters[key]);
  const text = params.toString().replaceAll('%2A', '*');
  return text ? `?${text}` : '';
}

export const PAGE_SIZE = 50;

/** The GET /api/activity path for one page: newest first, continuing from `cursor`. */
export function activityPath(filters: ActivityFilters, cursor: string | null): string {
  const params = new URLSearchParams();
  if (filters.type) params.set('action', filters.type);
  if (filters.slot) params.set('target', filters.slot);
  if (filters.outcome) params.set('outcome', filters.outcome);
  if (filters.since) params.set('since', filters.since);
  if (filters.until) params.set('until', filters.until);
  params.set('limit', String(PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return `/api/activity?${params.toString()}`;
}

/** What a row needs for the filters to judge it. */
export interface Judged {
  action: string;
  target: string;
  outcome: string;
  ts: string;
}

/** Whether a row passes the filters, as the API's SQL would decide it. */
export function rowMatches(filters: ActivityFilters, row: Judged): boolean {
  if (filters.type) {
    const prefix = filters.type.endsWith('.*') ? filters.type.slice(0, -1) : null;
    if (prefix === null ? row.action !== filters.type : !row.action.startsWith(prefix)) return false;
  }
  if (filters.slot && row.target !== filters.slot) return false;
  if (filters.outcome && row.outcome !== filters.outcome) return false;
  const at = Date.parse(row.ts);
  if (filters.since && at < Date.parse(filters.since)) return false;
  if (filters.until && at >= Date.parse(filters.until)) return false;
  return true;
}

/** An ISO instant as a `datetime-local` input shows it, in the browser's time zone. */
export function localInputOf(iso: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A `datetime-local` value (local time, no zone) as the UTC instant the API needs ('' when empty). */
export function isoOfLocalInput(local: string): string {
  return local ? instant(local) : '';
}
