// What a destructive slot action changes, in words, before it is confirmed: which file goes
// or changes, and what happens to a running engine; which runtime action the slot's state
// allows now. Pure, so it is tested without a page.
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

export type RuntimeActionName = 'load' | 'unload' | 'restart';

/**
 * Why a runtime action does nothing useful in this state, or null when it is the slot's to
 * take: load a stopped or failed slot, unload one that runs or is on its way, restart a
 * ready one. A disabled slot takes none (Enable first); a stopping one waits.
 */
export function actionRefusal(action: RuntimeActionName, state: string): string | null {
  if (state === 'disabled') return 'the slot is disabled: enable it first';
  if (state === 'stopping') return 'the slot is stopping';
  const loading = state === 'starting' || state === 'warming';
  if (action === 'load') return state === 'ready' ? 'already loaded' : loading ? 'already loading' : null;
  if (action === 'unload') return state === 'stopped' || state === 'error' ? 'not running' : null;
  return state === 'ready' ? null : loading ? 'still loading: unload it, or wait until it is ready' : 'not running: load it';
}
