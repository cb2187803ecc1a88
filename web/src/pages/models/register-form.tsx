// Register a model file already on this host (POST /api/models): checked as the user types
// against the server's own schema, the server's refusal shown beside the field it is about.
// The path is host-only: from elsewhere it is read-only, with the reason.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { RegisterModelRequestSchema, type RegisterModelPayload } from '../../../../src/protocol/models.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { problemsOfIssues } from '../../field-problems.js';
import { modelsQuery } from './queries.js';
import { isFieldError, registerProblems } from './register-problems.js';

const HOST_ONLY_REASON = 'the file a model points at is host-only: register by path on this host or with an admin token';

export function RegisterForm() {
  const queries = useQueryClient();
  const access = useAccess();
  const [form, setForm] = useState({ id: '', path: '', name: '' });
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<RegisterModelPayload | null>(null);
  const [busy, setBusy] = useState(false);
  const body = { id: form.id, path: form.path, ...(form.name && { name: form.name }) };
  const parsed = RegisterModelRequestSchema.safeParse(body);
  const problems = { ...(touched && !parsed.success ? problemsOfIssues(parsed.error.issues) : {}), ...registerProblems(error) };
  const change = (key: keyof typeof form) => (value: string) => {
    setForm((old) => ({ ...old, [key]: value }));
    setTouched(true);
    setError(null);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setDone(null);
    try {
      const answer = await sendJson<RegisterModelPayload>('POST', '/api/models', body);
      setDone(answer);
      setForm({ id: '', path: '', name: '' });
      setTouched(false);
      void queries.invalidateQueries({ queryKey: modelsQuery.queryKey });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const pathLocked = !access.hostAuthority;
  return (
    <form className="card" onSubmit={submit} aria-labelledby="register-title" data-testid="register">
      <h2 id="register-title">Register a file</h2>
      <Field label="Id" path="id" problem={problems.id}>
        <input value={form.id} onChange={(e) => change('id')(e.target.value)} data-testid="register-id" />
      </Field>
      <Field label="Path" path="path" problem={problems.path} hint={pathLocked ? HOST_ONLY_REASON : 'absolute path of a .gguf file on this host'}>
        <input value={form.path} readOnly={pathLocked} title={pathLocked ? HOST_ONLY_REASON : undefined} onChange={(e) => change('path')(e.target.value)} data-testid="register-path" />
      </Field>
      <Field label="Name (optional)" path="name" problem={problems.name}>
        <input value={form.name} onChange={(e) => change('name')(e.target.value)} />
      </Field>
      {error !== null && !isFieldError(error) && <ErrorNote error={error} />}
      {done && (
        <p className="muted" role="status">
          {done.created ? 'Registered' : 'Refreshed'} <code>{done.model.id}</code>
          {done.warnings.map((warning) => (
            <span key={warning} className="warn-note">
              {warning}
            </span>
          ))}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={!parsed.success || busy || pathLocked || !access.can('write')} title={pathLocked ? HOST_ONLY_REASON : access.why('write')}>
          {busy ? 'Registering…' : 'Register'}
        </button>
      </div>
    </form>
  );
}
