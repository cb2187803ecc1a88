// A registry row's actions: assign the model to a slot (its [model].default) and remove the
// entry, each confirmed with what it will change before it changes it.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { AssignModelPayload, ModelPayload, RemoveModelPayload } from '../../../../src/protocol/models.js';
import type { SlotViewPayload } from '../../../../src/protocol/slots.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { slotsQuery } from '../../queries.js';
import { modelsQuery } from './queries.js';
import type { SlotUse } from './usage.js';

type Dialog = { kind: 'remove' } | { kind: 'assign'; slot: SlotViewPayload } | null;

export function ModelActions({ model, uses, slots }: { model: ModelPayload; uses: SlotUse[]; slots: SlotViewPayload[] }) {
  const queries = useQueryClient();
  const access = useAccess();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [slotName, setSlotName] = useState('');
  const ref = encodeURIComponent(model.id);
  const refresh = () => Promise.all([queries.invalidateQueries({ queryKey: modelsQuery.queryKey }), queries.invalidateQueries({ queryKey: slotsQuery.queryKey })]);
  const defaults = uses.filter((use) => use.isDefault).map((use) => use.slot);
  const remove = async () => {
    // The confirmation names the slots that keep naming it; removing anyway is what the user confirmed.
    await sendJson<RemoveModelPayload>('DELETE', `/api/models/${ref}${defaults.length > 0 ? '?force=true' : ''}`);
    await refresh();
  };
  const assign = async (slot: string) => {
    await sendJson<AssignModelPayload>('POST', `/api/models/${ref}/assign`, { slot });
    setSlotName('');
    await refresh();
  };
  const chosen = slots.find((slot) => slot.name === slotName);
  const denied = !access.can('write');
  return (
    <div className="row-actions">
      <select value={slotName} onChange={(e) => setSlotName(e.target.value)} aria-label={`slot to assign ${model.id} to`} disabled={denied} data-testid="assign-slot">
        <option value="">slot…</option>
        {slots.map((slot) => (
          <option key={slot.name} value={slot.name}>
            {slot.name}
          </option>
        ))}
      </select>
      <button type="button" disabled={!chosen || denied} title={access.why('write')} onClick={() => chosen && setDialog({ kind: 'assign', slot: chosen })} data-testid="assign">
        Assign
      </button>
      <button type="button" className="danger" disabled={denied} title={access.why('write')} onClick={() => setDialog({ kind: 'remove' })} data-testid="remove">
        Remove
      </button>
      {dialog?.kind === 'remove' && (
        <Confirm
          title={`Remove ${model.id}?`}
          action="Remove"
          onConfirm={remove}
          onClose={() => setDialog(null)}
          changes={
            <ul data-testid="remove-changes">
              <li>
                The registry entry <code>{model.id}</code> goes; the file stays at <code>{model.path}</code>.
              </li>
              {uses.length === 0 ? (
                <li>No slot uses it.</li>
              ) : (
                uses.map((use) => (
                  <li key={use.slot}>
                    Slot <strong>{use.slot}</strong> {use.isDefault ? 'keeps naming it as its default model and will not start until it gets another' : 'runs it now; its next start loads its default model'}.
                  </li>
                ))
              )}
            </ul>
          }
        />
      )}
      {dialog?.kind === 'assign' && (
        <Confirm
          title={`Assign ${model.id} to ${dialog.slot.name}?`}
          action="Assign"
          danger={false}
          onConfirm={() => assign(dialog.slot.name)}
          onClose={() => setDialog(null)}
          changes={
            <p>
              Slot <strong>{dialog.slot.name}</strong>'s default model becomes <code>{model.id}</code> (it is <code>{dialog.slot.model || 'none'}</code> now). Nothing is loaded: the slot picks
              it up at its next start.
            </p>
          }
        />
      )}
    </div>
  );
}
