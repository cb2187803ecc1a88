// What a destructive slot action changes, in words, before it is confirmed: which file goes
// or changes, and what happens to a running engine. Pure, so it is tested without a page.
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';

const RUNNING = new Set(['starting', 'warming', 'ready', 'stopping']);

/** Whether an engine may be running (or about to) for the slot: deleting it needs force. */
export function isRunning(slot: Pick<SlotDetailPayload, 'state' | 'in_flight'>): boolean {
  return RUNNING.has(slot.state) || slot.in_flight > 0;
}

function engineLine(slot: SlotDetailPayload): string {
  const what = slot.pid === null ? `its engine (${slot.state})` : `its running engine (pid ${slot.pid}, port ${slot.port})`;
  const requests = slot.in_flight > 0 ? `, cutting off ${slot.in_flight} request(s) in flight` : '';
  return `${what} is stopped${requests}`;
}

export function deleteChanges(slot: SlotDetailPayload): string[] {
  return [
    `${slot.file} is removed`,
    ...(isRunning(slot) ? [engineLine(slot)] : []),
    `requests for ${slot.name} or ${slot.model || 'its model'} are no longer served by it`,
    'its state directory (engine.log, state.json) is kept',
  ];
}

export function disableChanges(slot: SlotDetailPayload): string[] {
  return [
    `${slot.file}: [slot].enabled becomes false`,
    'it no longer starts when the gateway starts or when a request names it (those get 409 slot.disabled)',
    ...(isRunning(slot) ? [engineLine(slot)] : []),
  ];
}
