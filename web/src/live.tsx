// The live half of the page: one event stream for the whole app, folded into the query
// cache as events arrive (a slot's state the moment it changes, its figures from
// `metrics.slot`), so no view polls. After an outage or a gateway restart every query is
// fetched again, since events may have been missed.
import { createContext, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { SvcEvent } from '../../src/protocol/events.js';
import type { SlotListPayload } from '../../src/protocol/slots.js';
import type { EventPagePayload } from '../../src/protocol/events.js';
import { EventStreamClient, type StreamStatus } from './event-stream.js';
import { MetricsHistory, type MetricsSeries } from './metrics-history.js';
import { problemsQuery, slotsQuery, hardwareQuery } from './queries.js';
import { approvalsQuery, foldApproval } from './approvals.js';

type EventListener = (event: SvcEvent) => void;

interface Live {
  status: StreamStatus;
  history: MetricsHistory;
  listeners: Set<EventListener>;
}

const LiveContext = createContext<Live | null>(null);

/** Event types after which the slot list is read again (what they change is more than a state). */
const RELIST = /^(slot\.(created|deleted|edited|evicted)|model\.assigned|config\.reloaded|profile\.updated|stack\.apply\.completed)$/;

function patchSlots(queries: QueryClient, slot: string, patch: (row: SlotListPayload['slots'][number]) => SlotListPayload['slots'][number]): void {
  queries.setQueryData(slotsQuery.queryKey, (old) => old && { slots: old.slots.map((row) => (row.name === slot ? patch(row) : row)) });
}

function fold(queries: QueryClient, history: MetricsHistory, event: SvcEvent): void {
  if (event.type === 'slot.state') {
    patchSlots(queries, event.data.slot, (row) => ({ ...row, state: event.data.to }));
    // The rest of the row (pid, backend, memory, last error) is read once the move settles.
    if (event.data.to !== 'starting' && event.data.to !== 'warming') {
      void queries.invalidateQueries({ queryKey: slotsQuery.queryKey });
      void queries.invalidateQueries({ queryKey: hardwareQuery.queryKey });
    }
  } else if (event.type === 'metrics.slot') {
    history.add(event.data.slot, Date.parse(event.ts), event.data.tokens_per_second, event.data.ttft_ms_avg);
    patchSlots(queries, event.data.slot, (row) => ({ ...row, in_flight: event.data.in_flight }));
  } else if (RELIST.test(event.type)) {
    void queries.invalidateQueries({ queryKey: slotsQuery.queryKey });
  } else if (event.type === 'approval.enqueued' || event.type === 'approval.resolved') {
    queries.setQueryData(approvalsQuery.queryKey, (old) => old && { approvals: foldApproval(old.approvals, event.data.entry) });
  }
  if (event.severity !== 'info') {
    queries.setQueryData(problemsQuery.queryKey, (old: EventPagePayload | undefined) => old && { ...old, events: [...old.events.slice(-199), event] });
  }
}

export function LiveProvider({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const history = useMemo(() => new MetricsHistory(), []);
  const listeners = useMemo(() => new Set<EventListener>(), []);
  const [status, setStatus] = useState<StreamStatus>({ state: 'connecting', failures: 0, error: null, lastEventId: null });
  useEffect(() => {
    const client = new EventStreamClient('/api/events/stream', {
      onEvent: (event) => {
        fold(queries, history, event);
        for (const listener of listeners) listener(event);
      },
      onStatus: setStatus,
      onResync: () => void queries.invalidateQueries(),
    });
    client.start();
    return () => client.stop();
  }, [queries, history, listeners]);
  const live = useMemo(() => ({ status, history, listeners }), [status, history, listeners]);
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

function useLive(): Live {
  const live = useContext(LiveContext);
  if (!live) throw new Error('useLive outside LiveProvider');
  return live;
}

export const useStreamStatus = (): StreamStatus => useLive().status;

export function useSlotSeries(slot: string): MetricsSeries {
  const { history } = useLive();
  return useSyncExternalStore(history.subscribe, () => history.get(slot));
}

/**
 * Call `listener` with every event from the app's one stream while the calling component is
 * mounted (a page's progress bars, its live tail). The latest `listener` is used, so it may
 * close over state without re-subscribing.
 */
export function useEvents(listener: EventListener): void {
  const { listeners } = useLive();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => {
    const call: EventListener = (event) => latest.current(event);
    listeners.add(call);
    return () => void listeners.delete(call);
  }, [listeners]);
}
