// The Activity page: the activity log (GET /api/activity) filtered by type, outcome, slot and
// time range, the filters in the URL so a view can be linked; older rows page by page with
// the log's cursor; and a live tail: rows recorded while the page is open appear on top as
// their `activity` events arrive on the app's event stream (no polling).
import { useInfiniteQuery, type InfiniteData, type UseInfiniteQueryResult } from '@tanstack/react-query';
import type { ActivityPage } from '../../../../src/protocol/activity-wire.js';
import { ErrorNote } from '../../components/error-note.js';
import { problemsOfError } from '../../field-problems.js';
import { useTitle } from '../../router.js';
import { FilterBar } from './filter-bar.js';
import { ActivityTable } from './activity-table.js';
import { shownOf, useLiveTail } from './live-tail.js';
import { activityQuery } from './queries.js';
import { useUrlFilters } from './use-url-filters.js';
import { searchOf, type ActivityFilters } from './filters.js';
import './activity.css';

type LogQuery = UseInfiniteQueryResult<InfiniteData<ActivityPage>>;

/** Keyed by the filters, so the live tail starts over with them. */
function ActivityLog({ filters, log }: { filters: ActivityFilters; log: LogQuery }) {
  const live = useLiveTail(filters, log.data?.pages[0]);
  const rows = [...live, ...(log.data?.pages.flatMap((page) => page.items.map(shownOf)) ?? [])];
  return (
    <>
      {log.error && <ErrorNote error={log.error} />}
      {log.isPending && <p className="muted">Loading…</p>}
      {log.data && rows.length === 0 && (
        <p className="muted" data-testid="activity-empty">
          No activity matches these filters yet; new rows appear here as they happen.
        </p>
      )}
      {rows.length > 0 && <ActivityTable rows={rows} />}
      <div className="toolbar activity-paging">
        {log.hasNextPage && (
          <button type="button" onClick={() => void log.fetchNextPage()} disabled={log.isFetchingNextPage} data-testid="activity-older">
            {log.isFetchingNextPage ? 'Loading older rows…' : 'Older'}
          </button>
        )}
        {log.data && !log.hasNextPage && rows.length > 0 && <span className="muted">The start of the log (for these filters).</span>}
        {log.isFetchNextPageError && <ErrorNote error={log.error} />}
      </div>
    </>
  );
}

export default function Page() {
  useTitle('Activity');
  const [filters, setFilters] = useUrlFilters();
  const log = useInfiniteQuery(activityQuery(filters));
  return (
    <section className="page">
      <h1>Activity</h1>
      <p className="muted">Every configuration change and state change, newest first. Rows recorded while this page is open appear on top, live.</p>
      <FilterBar filters={filters} onChange={setFilters} problems={problemsOfError(log.error)} />
      <ActivityLog key={searchOf(filters)} filters={filters} log={log} />
    </section>
  );
}
