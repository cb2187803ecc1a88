// The profile form itself: create (original undefined) or edit (only changed fields are sent).
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { PROFILE_BACKENDS, PROFILE_DEVICE_CLASSES, type ProfileChangePayload, type ProfilePayload } from '../../../../src/protocol/profiles.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/error-note.js';
import { navigate } from '../../router.js';
import { checkForm, createBody, EMPTY_FORM, formOf, serverProblems, updateBody, type ProfileForm } from './profile-fields.js';
import { profilePath } from './queries.js';

export function ProfileFormView({ original }: { original: ProfilePayload | undefined }) {
  const access = useAccess();
  const queries = useQueryClient();
  const [form, setForm] = useState<ProfileForm>(() => (original ? formOf(original) : EMPTY_FORM));
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [restart, setRestart] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<ProfileChangePayload | null>(null);
  const [busy, setBusy] = useState(false);
  /** Fields edited since the server's last refusal: its problem there no longer applies. */
  const [editedSinceError, setEditedSinceError] = useState<Set<string>>(new Set());
  const local = checkForm(form, original);
  const fromServer = serverProblems(error, form.name);
  const problem = (field: keyof ProfileForm) => (touched.has(field) ? local[field] : undefined) ?? (editedSinceError.has(field) ? undefined : fromServer[field]);
  const set = <K extends keyof ProfileForm>(field: K, value: ProfileForm[K]) => {
    setForm((now) => ({ ...now, [field]: value }));
    setTouched((now) => new Set(now).add(field));
    setEditedSinceError((now) => new Set(now).add(field));
    setSaved(null);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(new Set(Object.keys(form)));
    if (Object.keys(local).length > 0) return;
    setBusy(true);
    setError(null);
    setEditedSinceError(new Set());
    try {
      if (original) {
        setSaved(await sendJson<ProfileChangePayload>('PUT', `${profilePath(original.name)}${restart ? '?restart=true' : ''}`, updateBody(form, original)));
      } else {
        await sendJson<ProfilePayload>('POST', '/api/profiles', createBody(form));
        navigate('/stacks');
      }
      await queries.invalidateQueries({ queryKey: ['profiles'] });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const unchanged = original !== undefined && local[''] !== undefined;
  return (
    <form className="card narrow" onSubmit={submit} data-testid="profile-form" noValidate>
      {!original && (
        <Field label="Name" problem={problem('name')} path="name">
          <input value={form.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" />
        </Field>
      )}
      <Field label="Image" hint='a container image reference, or "" for an engine run as a process' problem={problem('image')} path="image">
        <input value={form.image} onChange={(e) => set('image', e.target.value)} autoComplete="off" spellCheck={false} />
      </Field>
      <Field label="Device class" problem={problem('device_class')} path="device_class">
        <select value={form.device_class} onChange={(e) => set('device_class', e.target.value as ProfileForm['device_class'])}>
          {PROFILE_DEVICE_CLASSES.map((c) => <option key={c}>{c}</option>)}
        </select>
      </Field>
      <Field label="Backend" hint="gpu profiles only" problem={problem('backend')} path="backend">
        <select value={form.backend} onChange={(e) => set('backend', e.target.value as ProfileForm['backend'])}>
          <option value="">none</option>
          {PROFILE_BACKENDS.map((b) => <option key={b}>{b}</option>)}
        </select>
      </Field>
      <Field label="Engine flags" hint="svc supplies the model, port, host, context size and alias itself" problem={problem('flags')} path="flags">
        <textarea rows={3} value={form.flags} onChange={(e) => set('flags', e.target.value)} spellCheck={false} />
      </Field>
      <Field label="Intent" problem={problem('intent')} path="intent">
        <input value={form.intent} onChange={(e) => set('intent', e.target.value)} />
      </Field>
      <Field label="Quant" problem={problem('quant')} path="quant">
        <input value={form.quant} onChange={(e) => set('quant', e.target.value)} />
      </Field>
      <label className="check">
        <input type="checkbox" checked={form.mtp} onChange={(e) => set('mtp', e.target.checked)} /> MTP (multi-token prediction)
      </label>
      {original && original.used_by.length > 0 && (
        <label className="check">
          <input type="checkbox" checked={restart} onChange={(e) => setRestart(e.target.checked)} /> restart the running slots that use it now ({original.used_by.join(', ')})
        </label>
      )}
      {unchanged && !saved && <p className="muted">Nothing changed yet.</p>}
      {error !== null && <ErrorNote error={error} />}
      {saved && (
        <p role="status" data-testid="profile-saved">
          Saved. {saved.slots.length ? `Slots ${saved.slots.join(', ')} pick it up at their next start.` : 'No slot uses it.'}
          {saved.restarted.length > 0 && ` Restarted now: ${saved.restarted.join(', ')}.`}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || unchanged || !access.can('write')} title={access.why('write')} data-testid="profile-save">
          {original ? 'Save' : 'Create'}
        </button>
      </div>
    </form>
  );
}
