// The detail view's actions: load, unload, restart, enable or disable, edit, delete. Loads
// answer when the engine is ready (or failed); the state moves live meanwhile. Only the
// runtime actions the slot's state allows are enabled (slot-changes.ts). Disable and
// delete say what they change first. Without write access every button is disabled, saying why.
import { useState } from 'react';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { navigate } from '../../router.js';
import { slotApi, type RuntimeAction } from './queries.js';
import { actionRefusal, deleteChanges, disableChanges, isRunning } from './slot-changes.js';
import { useSlotAction } from './use-slot-action.js';
import { whileDeleting } from './use-slot-live.js';

const RUNTIME: Array<{ action: RuntimeAction; label: string; busyLabel: string }> = [
  { action: 'load', label: 'Load', busyLabel: 'Loading…' },
  { action: 'unload', label: 'Unload', busyLabel: 'Unloading…' },
  { action: 'restart', label: 'Restart', busyLabel: 'Restarting…' },
];

export function SlotActions({ slot }: { slot: SlotDetailPayload }) {
  const access = useAccess();
  const action = useSlotAction();
  const [confirming, setConfirming] = useState<'delete' | 'disable' | null>(null);
  const canWrite = access.can('write');
  const locked = !canWrite || action.busy !== null;
  const title = access.why('write');
  const running = isRunning(slot);
  const disable = async () => {
    await slotApi.edit(slot.name, { enabled: false });
    if (running) await slotApi.run(slot.name, 'unload');
  };
  const remove = async () => {
    await whileDeleting(slot.name, () => slotApi.remove(slot.name, running));
    navigate('/slots');
  };
  return (
    <div className="toolbar" data-testid="slot-actions">
      {RUNTIME.map(({ action: name, label, busyLabel }) => {
        // Only what the state allows: a ready slot is not loaded again, a stopped one not unloaded.
        const refusal = action.busy === label ? null : actionRefusal(name, slot.state);
        return (
          <button key={name} type="button" disabled={locked || refusal !== null} title={title ?? refusal ?? undefined} onClick={() => void action.run(label, () => slotApi.run(slot.name, name))} data-testid={`action-${name}`}>
            {action.busy === label ? busyLabel : label}
          </button>
        );
      })}
      {slot.enabled ? (
        <button type="button" disabled={locked} title={title} onClick={() => setConfirming('disable')} data-testid="action-disable">
          Disable
        </button>
      ) : (
        <button type="button" disabled={locked} title={title} onClick={() => void action.run('Enable', () => slotApi.edit(slot.name, { enabled: true }))} data-testid="action-enable">
          {action.busy === 'Enable' ? 'Enabling…' : 'Enable'}
        </button>
      )}
      <button type="button" disabled={locked} title={title} onClick={() => navigate(`/slots/${encodeURIComponent(slot.name)}/edit`)} data-testid="action-edit">
        Edit
      </button>
      <button type="button" className="danger" disabled={locked} title={title} onClick={() => setConfirming('delete')} data-testid="action-delete">
        Delete
      </button>
      {action.error !== null && <ErrorNote error={action.error} />}
      {confirming === 'delete' && (
        <Confirm title={`Delete slot ${slot.name}?`} changes={<ChangeList lines={deleteChanges(slot)} />} action="Delete" onConfirm={() => action.runOrThrow('Delete', remove)} onClose={() => setConfirming(null)} />
      )}
      {confirming === 'disable' && (
        <Confirm title={`Disable slot ${slot.name}?`} changes={<ChangeList lines={disableChanges(slot)} />} action="Disable" onConfirm={() => action.runOrThrow('Disable', disable)} onClose={() => setConfirming(null)} />
      )}
    </div>
  );
}

function ChangeList({ lines }: { lines: string[] }) {
  return (
    <ul data-testid="confirm-changes">
      {lines.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
