// Swap the slot's model for another registry model: the engine restarts on it and the answer
// comes once it is ready. "Save as default" writes [model].default first (persist); without
// it the swap lasts until the next load or swap names a model.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { SlotDetailPayload } from '../../../../src/protocol/slots.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { modelsQuery, slotApi } from './queries.js';
import { useSlotAction } from './use-slot-action.js';

export function SwapModel({ slot }: { slot: SlotDetailPayload }) {
  const access = useAccess();
  const models = useQuery(modelsQuery);
  const action = useSlotAction();
  const [model, setModel] = useState('');
  const [persist, setPersist] = useState(true);
  const choices = (models.data?.models ?? []).filter((entry) => entry.id !== slot.model);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (model) void action.run('Swap', () => slotApi.swap(slot.name, model, persist));
  };
  if (models.error) return <ErrorNote error={models.error} />;
  return (
    <form onSubmit={submit} data-testid="swap-form">
      <Field label="Model" hint={`running or next: ${slot.model || '—'}`} path="swap-model">
        <select value={model} onChange={(event) => setModel(event.target.value)}>
          <option value="">{choices.length === 0 ? 'no other model in the registry' : 'choose a model…'}</option>
          {choices.map((entry) => (
            <option key={entry.id} value={entry.id} disabled={!entry.present}>
              {entry.id}
              {entry.quant && ` · ${entry.quant}`}
              {!entry.present && ' (file missing)'}
            </option>
          ))}
        </select>
      </Field>
      <label className="check">
        <input type="checkbox" checked={persist} onChange={(event) => setPersist(event.target.checked)} /> save as the slot's default model ({slot.file})
      </label>
      {action.error !== null && <ErrorNote error={action.error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={!access.can('write') || !model || action.busy !== null || !slot.enabled} title={access.why('write') ?? (slot.enabled ? undefined : 'a disabled slot is not started: enable it first')}>
          {action.busy ? 'Swapping…' : 'Swap'}
        </button>
      </div>
    </form>
  );
}
