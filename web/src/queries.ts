// What the pages read, one query each. The wire types come from src/protocol (type-only);
// where the protocol has no type for a payload yet, the fields the dashboard reads are
// declared here, narrowly.
import { queryOptions } from '@tanstack/react-query';
import type { EventPagePayload } from '../../src/protocol/events.js';
import type { HardwareProbe } from '../../src/protocol/hardware.js';
import type { SlotListPayload } from '../../src/protocol/slots.js';
import { getJson } from './api-error.js';

/** GET /api/status, the fields the Overview shows (the route builds it inline: src/server/routes/system.ts). */
export interface StatusPayload {
  version: string;
  uptime_s: number;
  started_at: string;
  config_warnings: string[];
}

/** GET /api/hardware: the cached probe (null before the first) beside a live memory reading. */
export interface HardwarePayload {
  probe: HardwareProbe | null;
  host: { hostname: string; cpu_count: number; cpu_model: string; mem_total_mb: number; mem_available_mb: number };
}

export const slotsQuery = queryOptions({ queryKey: ['slots'], queryFn: ({ signal }) => getJson<SlotListPayload>('/api/slots', signal) });
export const statusQuery = queryOptions({ queryKey: ['status'], queryFn: ({ signal }) => getJson<StatusPayload>('/api/status', signal) });
export const hardwareQuery = queryOptions({ queryKey: ['hardware'], queryFn: ({ signal }) => getJson<HardwarePayload>('/api/hardware', signal) });
/** The latest warnings and errors; the stream prepends new ones to this page. */
export const problemsQuery = queryOptions({
  queryKey: ['events', 'problems'],
  queryFn: ({ signal }) => getJson<EventPagePayload>('/api/events?severity=warn&limit=200', signal),
});
