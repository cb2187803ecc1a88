// Snapshot: the enabled slots as they are configured now, saved as a new user stack.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { SnapshotStackRequestSchema } from '../../../../src/protocol/stacks.js';
import type { StackPayload } from '../../../../src/protocol/stacks.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/error-note.js';
import { problemsOfError, problemsOfIssues } from '../../field-problems.js';
import { stacksQuery } from './queries.js';

/** The request body, with empty optional fields left out (the server's defaults apply). */
export function snapshotBody(slug: string, name: string, description: string) {
  return { slug, ...(name && { name }), ...(description && { description }) };
}

export function SnapshotForm() {
  const access = useAccess();
  const queries = useQueryClient();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<StackPayload | null>(null);
  const body = snapshotBody(slug, name, description);
  const parsed = SnapshotStackRequestSchema.safeParse(body);
  const problems = { ...(touched && !parsed.success ? problemsOfIssues(parsed.error.issues) : {}), ...problemsOfError(error) };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    setError(null);
    if (!parsed.success) return;
    try {
      setSaved(await sendJson<StackPayload>('POST', '/api/stacks/snapshot', body));
      await queries.invalidateQueries({ queryKey: stacksQuery.queryKey });
    } catch (failure) {
      setError(failure);
    }
  };
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setTouched(true);
    setSaved(null);
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="snapshot-title" data-testid="snapshot-form">
      <h3 id="snapshot-title">Snapshot the live slots</h3>
      <p className="muted">Saves the enabled slots as they are configured now (model, profile, device, engine, role, extra args) as a new stack.</p>
      <Field label="Slug" problem={problems.slug} path="slug">
        <input value={slug} onChange={(e) => edit(setSlug)(e.target.value)} autoComplete="off" />
      </Field>
      <Field label="Name" hint="defaults to the slug" problem={problems.name} path="name">
        <input value={name} onChange={(e) => edit(setName)(e.target.value)} autoComplete="off" />
      </Field>
      <Field label="Description" problem={problems.description} path="description">
        <input value={description} onChange={(e) => edit(setDescription)(e.target.value)} autoComplete="off" />
      </Field>
      {error !== null && <ErrorNote error={error} />}
      {saved && (
        <p role="status" data-testid="snapshot-saved">
          Saved <code>{saved.slug}</code> with {saved.slots.length} slot{saved.slots.length === 1 ? '' : 's'}.
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={!access.can('write') || (touched && !parsed.success)} title={access.why('write')}>
          Save snapshot
        </button>
      </div>
    </form>
  );
}
