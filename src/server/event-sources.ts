// How the gateway's own happenings become events on the bus (docs/api.md, "Events"): a
// slot transition, an activity row, a GPU mode switch. Kept apart from context.ts so that
// the wording and severities of events are in one place.
import type { ActivityInput } from '../activity/store.js';
import { redactSecrets } from '../activity/redact.js';
import type { EventInput, StorePrunedData } from '../protocol/events.js';
import type { GpuArbiterView } from '../slots/gpu-arbiter.js';
import type { Transition } from '../slots/slot-runtime.js';

export function slotStateEvent(t: Transition): EventInput {
  return {
    type: 'slot.state',
    source: `slot:${t.slot}`,
    severity: t.to === 'error' ? 'error' : 'info',
    message: `slot ${t.slot}: ${t.from} -> ${t.to} (${t.reason})`,
    data: { slot: t.slot, from: t.from, to: t.to, reason: t.reason, ...(t.details && { details: t.details }) },
  };
}

/** The row exactly as the activity log stores it (defaults filled, secrets `***`). */
export function activityEvent(entry: ActivityInput): EventInput {
  const outcome = entry.outcome ?? 'ok';
  const target = entry.target ?? '';
  const what = target ? `${entry.action} ${target}` : entry.action;
  return {
    type: 'activity',
    source: 'activity',
    severity: outcome === 'error' ? 'warn' : 'info',
    message: entry.message ? `${what}: ${entry.message}` : `${what}${outcome === 'error' ? ' failed' : ''}`,
    data: {
      action: entry.action,
      target,
      actor: entry.actor ?? 'system',
      kind: entry.kind ?? 'action',
      outcome,
      message: entry.message ?? '',
      details: boundedDetails(redactSecrets(entry.details ?? {}) as Record<string, unknown>),
    },
  };
}

/**
 * Largest `details` an activity event carries as it is: the ring holds 500 events (and a
 * slow reader's queue up to 256 more), so this bounds what a burst of huge rows (a settings
 * value of megabytes) can hold in memory to a few tens of MiB, once, shared by every reader.
 */
export const ACTIVITY_DETAILS_MAX_BYTES = 32 * 1024;

/** A row's details, or (for a huge one, e.g. a settings change with a long value) a note saying where the whole row is. */
function boundedDetails(details: Record<string, unknown>): Record<string, unknown> {
  const bytes = Buffer.byteLength(JSON.stringify(details));
  if (bytes <= ACTIVITY_DETAILS_MAX_BYTES) return details;
  return { truncated: true, bytes, note: 'too large for an event: GET /api/activity has the whole row' };
}

export function gpuModeEvent(view: GpuArbiterView, reason: string): EventInput {
  return {
    type: 'gpu.mode',
    source: 'gpu',
    message: `GPU in ${view.mode} mode${view.image_slot ? ` (${view.image_slot})` : ''}: ${reason}`,
    data: { ...view, reason },
  };
}

export function slotEvictedEvent(slot: string, reason: string): EventInput {
  return { type: 'slot.evicted', source: `slot:${slot}`, message: `slot ${slot} evicted: ${reason}`, data: { slot, reason } };
}

/** Expiry is the store working as meant (info); a cap reached removes entries before their time (warn). */
export function storePrunedEvent(data: StorePrunedData): EventInput {
  const why = data.reason === 'expired' ? 'expired' : `past ${data.reason}`;
  return { type: 'store.pruned', source: `store:${data.store}`, severity: data.reason === 'expired' ? 'info' : 'warn', message: `${data.store}: ${data.removed} removed (${why})`, data };
}
