// The create and edit form for a slot file: the slot API's own fields, then every other key
// of the file as a control generated from the slot file's schema (file-key-fields.tsx), each
// checked as the user types with the server's zod schemas, the server's problems beside
// their fields after a submit, summed up at the top, and the first one brought into view
// (form-summary.tsx). Only the fields the slot's type, device and engine use are shown.
import { useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { hostOnlyEnvIn } from '../../../../src/protocol/host-only.js';
import { CREATE_PROVIDERS, DEVICES, SLOT_TYPES } from '../../../../src/protocol/vocabulary.js';
import { useAccess } from '../../access.js';
import { Field } from '../../components/field.js';
import { modelsQuery, profilesQuery } from './queries.js';
import { FileKeyFields } from './file-key-fields.js';
import { FormSummary, useBringProblem } from './form-summary.js';
import type { FormFieldKey } from './form-problems.js';
import { useSlotForm } from './use-slot-form.js';
import { parseEnv, type SlotFormField, type SlotFormValues } from './form-values.js';

export interface SlotFormProps {
  /** The slot file's values when editing; null when creating. */
  initial: SlotFormValues | null;
  start: SlotFormValues;
  /** The texts of the file's other keys (file-fields.ts fileValuesOf). */
  fileStart: Readonly<Record<string, string>>;
  slotFile: string;
  submitLabel: string;
  /** Send the body; a rejection's problems are shown beside their fields. */
  onSubmit(body: unknown): Promise<void>;
}

const LABELS: Readonly<Record<SlotFormField, string>> = {
  name: 'Name',
  model: 'Model',
  type: 'Type',
  provider: 'Engine (provider)',
  device: 'Device',
  port: 'Port',
  ctx_size: 'Context size',
  profile: 'Profile',
  extra_args: 'Extra engine arguments',
  env: 'Engine environment',
  enabled: 'enabled',
};

/** A field's label: the form's own, or a file key's path (slot.workers). */
const labelOf = (field: FormFieldKey) => LABELS[field as SlotFormField] ?? field;

function Options({ values, empty }: { values: readonly string[]; empty: string }) {
  return (
    <>
      <option value="">{empty}</option>
      {values.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </>
  );
}

export function SlotForm({ initial, start, fileStart, slotFile, submitLabel, onSubmit }: SlotFormProps) {
  const access = useAccess();
  const form = useSlotForm(start, initial, fileStart, slotFile, access.hostAuthority);
  const models = useQuery(modelsQuery);
  const profiles = useQuery(profilesQuery);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ref = useRef<HTMLFormElement>(null);
  const bringProblem = useBringProblem(ref);
  const editing = initial !== null;
  const text = (field: SlotFormField) => ({ value: form.values[field] as string, onChange: (event: { target: { value: string } }) => form.set(field, event.target.value) });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    form.tried();
    if (!form.valid) return bringProblem();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(form.body());
    } catch (failure) {
      setError(failure);
      form.refused(failure);
      bringProblem();
    } finally {
      setBusy(false);
    }
  };
  // Variables the host set beyond the device and thread allowlist: such a caller may keep or remove them, not rewrite them, so the map is left alone.
  const hidden = new Set<string>(['enabled', ...(editing ? ['name'] : []), ...(form.contextShown ? [] : ['ctx_size'])]);
  const shownFields = new Set<FormFieldKey>([...Object.keys(LABELS).filter((field) => !hidden.has(field)), ...form.controls.map((control) => control.path)]);
  const envLocked = !access.hostAuthority && initial !== null && hostOnlyEnvIn(parseEnv(initial.env).env).length > 0;
  return (
    <form className="slot-form" onSubmit={submit} noValidate data-testid="slot-form" ref={ref}>
      <FormSummary error={error} listed={form.submitted ? form.listed : []} unplaced={form.unplaced} labelOf={labelOf} shown={shownFields} form={ref} />
      <fieldset disabled={!access.can('write')} title={access.why('write')}>
        <legend className="muted">{editing ? `Changes are written to ${slotFile}` : `Written as ${slotFile || 'slots/<name>.toml'}; the slot is not started`}</legend>
        <div className="form-grid">
          {!editing && (
            <Field label={LABELS.name} problem={form.problem('name')} hint="lowercase letters, digits, - and _; at most 32" path="name">
              <input {...text('name')} autoComplete="off" required />
            </Field>
          )}
          <Field label={LABELS.model} problem={form.problem('model')} hint="a registry model id (or an engine's own model id)" path="model">
            <input {...text('model')} list="slot-form-models" autoComplete="off" required />
          </Field>
          <datalist id="slot-form-models">
            {models.data?.models.map((model) => <option key={model.id} value={model.id} />)}
          </datalist>
          <Field label={LABELS.type} problem={form.problem('type')} hint={editing ? 'the API does not change a type: create another slot' : 'what the slot serves'} path="type">
            <select {...text('type')} disabled={editing}>
              <Options values={SLOT_TYPES} empty="llm (default)" />
            </select>
          </Field>
          <Field label={LABELS.provider} problem={form.problem('provider')} hint="default: by type and device (llama-server when one is found, else builtin)" path="provider">
            <select {...text('provider')}>
              <Options values={CREATE_PROVIDERS} empty={editing ? '(unchanged)' : '(default)'} />
            </select>
          </Field>
          <Field label={LABELS.device} problem={form.problem('device')} hint="default: the hardware probe's recommendation" path="device">
            <select {...text('device')}>
              <Options values={DEVICES} empty={editing ? '(unchanged)' : '(default)'} />
            </select>
          </Field>
          <Field label={LABELS.port} problem={form.problem('port')} hint="8081-8200; empty: the first free port of the pool" path="port">
            <input {...text('port')} type="number" inputMode="numeric" />
          </Field>
          {form.contextShown && (
            <Field label={LABELS.ctx_size} problem={form.problem('ctx_size')} hint="tokens, at least 128 (default 4096)" path="ctx_size">
              <input {...text('ctx_size')} type="number" inputMode="numeric" />
            </Field>
          )}
          <Field label={LABELS.profile} problem={form.problem('profile')} hint="a seed profile or one of profiles.toml; empty: the model's or the device's default" path="profile">
            <input {...text('profile')} list="slot-form-profiles" autoComplete="off" />
          </Field>
          <datalist id="slot-form-profiles">
            {profiles.data?.profiles.map((profile) => <option key={profile.name} value={profile.name} />)}
          </datalist>
        </div>
        <Field label={LABELS.extra_args} problem={form.problem('extra_args')} hint={access.hostAuthority ? 'applied last; where the engine listens (--host, --port) is svc\'s own' : 'flags that read host files or load code (--log-file, -m, --lora, …) need this host or an admin token'} path="extra_args">
          <input {...text('extra_args')} autoComplete="off" className="wide" />
        </Field>
        <Field label={LABELS.env} problem={envLocked ? undefined : form.problem('env')} hint={envLocked ? 'read-only: it holds variables beyond device lists and thread counts, which only this host or an admin token may change' : access.hostAuthority ? 'one NAME=value a line' : 'one NAME=value a line; without this host or an admin token only device lists (CUDA_VISIBLE_DEVICES, …) and thread counts (OMP_NUM_THREADS, …)'} path="env">
          <textarea {...text('env')} rows={3} readOnly={envLocked} className="wide" />
        </Field>
        <label className="check">
          <input type="checkbox" checked={form.values.enabled} onChange={(event) => form.set('enabled', event.target.checked)} data-testid="field-enabled" /> enabled (started at gateway start and on demand)
        </label>
        <FileKeyFields controls={form.controls} values={form.fileValues} set={form.setFile} problem={form.problem} hostAuthority={access.hostAuthority} />
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !access.can('write')} title={access.why('write')} data-testid="slot-form-submit">
          {busy ? `${submitLabel}…` : submitLabel}
        </button>
      </div>
    </form>
  );
}
