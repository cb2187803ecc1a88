// The activity log's pages, newest first: one infinite query per filter set, each page read
// by the cursor of the one before ("older").
import { infiniteQueryOptions } from '@tanstack/react-query';
import type { ActivityPage } from '../../../../src/protocol/activity-wire.js';
import { ApiError, getJson } from '../../api-error.js';
import { activityPath, searchOf, type ActivityFilters } from './filters.js';

export function activityQuery(filters: ActivityFilters) {
  return infiniteQueryOptions({
    queryKey: ['activity', searchOf(filters)],
    queryFn: ({ pageParam, signal }) => getJson<ActivityPage>(activityPath(filters, pageParam), signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    // A refused query (a bad date in a hand-edited link) stays refused: shown, not retried.
    retry: (failures, error) => failures < 1 && !(error instanceof ApiError && error.status !== null && error.status < 500),
  });
}
