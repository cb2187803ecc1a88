// What the Overview and the live stream read, one query each. The wire types come from
// src/protocol (type-only), so a changed payload breaks the dashboard's typecheck.
import { queryOptions } from '@tanstack/react-query';
import type { EventPagePayload } from '../../src/protocol/events.js';
import type { HardwarePayload, StatusPayload } from '../../src/protocol/system.js';
import type { SlotListPayload } from '../../src/protocol/slots.js';
import { getJson } from './api-error.js';

export const slotsQuery = queryOptions({ queryKey: ['slots'], queryFn: ({ signal }) => getJson<SlotListPayload>('/api/slots', signal) });
export const statusQuery = queryOptions({ queryKey: ['status'], queryFn: ({ signal }) => getJson<StatusPayload>('/api/status', signal) });
export const hardwareQuery = queryOptions({ queryKey: ['hardware'], queryFn: ({ signal }) => getJson<HardwarePayload>('/api/hardware', signal) });
/** The latest warnings and errors; the stream prepends new ones to this page. */
export const problemsQuery = queryOptions({
  queryKey: ['events', 'problems'],
  queryFn: ({ signal }) => getJson<EventPagePayload>('/api/events?severity=warn&limit=200', signal),
});
