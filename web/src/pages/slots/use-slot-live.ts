// One slot as the detail view shows it: its file and launch (GET /api/slots/<name>), with
// the state and in-flight count of the shared list, which the event stream patches as they
// change. The detail is read again when a move settles or the file changes; after a
// slot.deleted event it is not (that read would be a 404): the view says the slot is gone.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { useEvents } from '../../live.js';
import { slotsQuery } from '../../queries.js';
import { slotDetailQuery } from './queries.js';

const SETTLED = new Set(['stopped', 'ready', 'error']);

/**
 * Slots being deleted from this page: the engine's last state moves arrive before the
 * slot.deleted event, and a detail re-read then would find no slot. A slot created again
 * under the name (slot.created) is read as usual.
 */
const deleting = new Set<string>();

/** Run the deletion of `name`, with no detail re-reads meanwhile (nor after, once it succeeded). */
export async function whileDeleting<T>(name: string, operation: () => Promise<T>): Promise<T> {
  deleting.add(name);
  try {
    return await operation();
  } catch (error) {
    deleting.delete(name);
    throw error;
  }
}

/** Whether `event` changes what GET /api/slots/<slot> answers, beyond the state the list carries. */
export function rereadsDetail(event: SvcEvent, slot: string): boolean {
  switch (event.type) {
    case 'slot.state':
      return event.data.slot === slot && SETTLED.has(event.data.to);
    case 'slot.edited':
    case 'slot.evicted':
    case 'model.assigned':
      return event.data.slot === slot;
    case 'config.reloaded':
      return true;
    default:
      return false;
  }
}

export function useSlotLive(name: string): { detail: SlotDetailPayload | undefined; error: unknown; deleted: boolean } {
  const queries = useQueryClient();
  const [deleted, setDeleted] = useState(false);
  const detail = useQuery({ ...slotDetailQuery(name), enabled: !deleted });
  const row = useQuery(slotsQuery).data?.slots.find((slot) => slot.name === name);
  useEvents((event) => {
    if (event.type === 'slot.deleted' && event.data.slot === name) setDeleted(true);
    else if (event.type === 'slot.created' && event.data.slot === name) {
      deleting.delete(name);
      setDeleted(false);
    } else if (!deleted && !deleting.has(name) && rereadsDetail(event, name)) void queries.invalidateQueries({ queryKey: slotDetailQuery(name).queryKey });
  });
  const live = detail.data && row ? { ...detail.data, state: row.state, in_flight: row.in_flight } : detail.data;
  return { detail: live, error: detail.error, deleted };
}
