// The live tail: `activity` events (one per row the gateway records, docs/api.md) that match
// the filters, newest first, shown above the pages read so far. Events are taken only once
// the first page is there, and a re-read first page (after a reconnect) takes over the rows
// it now holds, so a row is not shown twice.
import { useEffect, useState } from 'react';
import type { ActivityRow } from '../../../../src/protocol/activity-wire.js';
import { useEvents } from '../../live.js';
import { rowMatches, type ActivityFilters } from './filters.js';

/** A row as the table shows it: from a page (its id) or from the stream (live). */
export type ShownRow = Omit<ActivityRow, 'id' | 'request_id'> & { key: string; live: boolean };

const MAX_LIVE = 500;

export function useLiveTail(filters: ActivityFilters, firstPage: { items: ActivityRow[] } | undefined): ShownRow[] {
  const [live, setLive] = useState<ShownRow[]>([]);
  useEvents((event) => {
    if (event.type !== 'activity' || firstPage === undefined) return;
    const row: ShownRow = { ...event.data, ts: event.ts, key: `live-${event.ts}-${event.id}`, live: true };
    if (rowMatches(filters, row)) setLive((rows) => [row, ...rows].slice(0, MAX_LIVE));
  });
  useEffect(() => {
    const newest = firstPage?.items[0]?.ts;
    if (newest !== undefined) setLive((rows) => rows.filter((row) => row.ts > newest));
  }, [firstPage]);
  return live;
}

export function shownOf(row: ActivityRow): ShownRow {
  return { ...row, key: `row-${row.id}`, live: false };
}
