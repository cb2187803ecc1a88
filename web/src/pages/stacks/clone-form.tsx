// /stacks/profiles/<name>/clone: copy a profile (a seed, usually) under a new name, then edit the copy.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { CloneProfileRequestSchema, type ProfilePayload } from '../../../../src/protocol/profiles.js';
import { sendJson } from '../../api-error.js';
import { Field } from '../../components/field.js';
import { ErrorNote } from '../../components/error-note.js';
import { problemsOfError, problemsOfIssues } from '../../field-problems.js';
import { Link, navigate, useTitle } from '../../router.js';
import { profilePath, profilesQuery } from './queries.js';

export function CloneForm({ from }: { from: string }) {
  useTitle(`Clone profile ${from}`);
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const parsed = CloneProfileRequestSchema.safeParse({ name });
  const problems = { ...(name && !parsed.success ? problemsOfIssues(parsed.error.issues) : {}), ...problemsOfError(error) };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!parsed.success) return;
    setError(null);
    try {
      const copy = await sendJson<ProfilePayload>('POST', `${profilePath(from)}/clone`, { name });
      await queries.invalidateQueries({ queryKey: profilesQuery.queryKey });
      navigate(`/stacks/profiles/${encodeURIComponent(copy.name)}/edit`);
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <section className="page stacks-page">
      <p>
        <Link to="/stacks">← Profiles & stacks</Link>
      </p>
      <h1>Clone profile {from}</h1>
      <form className="card narrow" onSubmit={submit} data-testid="clone-form">
        <Field label="Name of the copy" problem={problems.name} hint="lower-case letters, digits, - and _" path="name">
          <input value={name} onChange={(e) => (setName(e.target.value), setError(null))} autoComplete="off" />
        </Field>
        {error !== null && <ErrorNote error={error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={!parsed.success}>
            Clone
          </button>
        </div>
      </form>
    </section>
  );
}
