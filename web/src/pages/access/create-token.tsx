// Create a token (label, scope), checked as typed against the server's own request schema.
// The raw token is in the answer of this one request only: it is kept in this component's
// state, shown once with a copy button, and gone with the page.
import { useState, type FormEvent } from 'react';
import { CreateTokenRequestSchema, type CreatedTokenPayload } from '../../../../src/protocol/auth.js';
import { TOKEN_SCOPES } from '../../../../src/protocol/vocabulary.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { problemsOfError, problemsOfIssues } from '../../field-problems.js';
import { createToken } from './queries.js';
import { SCOPE_WORDS } from './words.js';

function ShownOnce({ created, onDone }: { created: CreatedTokenPayload; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.token);
      setCopied('Copied.');
    } catch (error) {
      setCopied(`Could not copy (${(error as Error).message}): select the token and copy it by hand.`);
    }
  };
  return (
    <div className="warn-note token-once" data-testid="token-once">
      <p>
        <strong>Token "{created.label}" ({created.scope})</strong>: {created.warning} This page will not show it again either.
      </p>
      <code className="token-value" data-testid="token-value">
        {created.token}
      </code>
      <div className="actions">
        <span role="status">{copied}</span>
        <button type="button" onClick={copy} data-testid="token-copy">
          Copy
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

export function CreateToken({ onCreated }: { onCreated: () => void }) {
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<string>('v1-only');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedTokenPayload | null>(null);
  const parsed = CreateTokenRequestSchema.safeParse({ label, scope });
  const problems = { ...(touched && !parsed.success ? problemsOfIssues(parsed.error.issues) : {}), ...problemsOfError(failure) };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (!parsed.success) return;
    setBusy(true);
    setFailure(null);
    try {
      setCreated(await createToken(parsed.data.label, parsed.data.scope));
      setLabel('');
      setTouched(false);
      onCreated();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card create-token" onSubmit={submit} noValidate data-testid="create-token">
      <h2>Create a token</h2>
      {created && <ShownOnce created={created} onDone={() => setCreated(null)} />}
      <Field label="Label" path="label" problem={problems.label} hint="Who or what will use it, e.g. laptop; unique among tokens.">
        <input value={label} autoComplete="off" onChange={(e) => (setLabel(e.target.value), setTouched(true), setFailure(null))} />
      </Field>
      <Field label="Scope" path="scope" problem={problems.scope} hint={SCOPE_WORDS[scope as keyof typeof SCOPE_WORDS]}>
        <select value={scope} onChange={(e) => setScope(e.target.value)}>
          {TOKEN_SCOPES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </Field>
      {failure !== null && <ErrorNote error={failure} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || (touched && !parsed.success)}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}
