// Install a tool server from a spec or a URL typed in (POST /api/mcp/install): checked as
// the user types, the server's refusal shown beside the field it is about, then the new
// server's page, where its state moves live. A spec runs a program on the host, so off the
// host (without an admin token) only a URL can be installed.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { navigate } from '../../router.js';
import { checkInstall, installProblems, installRequest } from './install-request.js';
import { mcpApi } from './mcp-api.js';
import { serversQuery } from './queries.js';

export function InstallForm() {
  const queries = useQueryClient();
  const access = useAccess();
  const [source, setSource] = useState('');
  const [id, setId] = useState('');
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const own = checkInstall(source, id, access.hostAuthority);
  const server = installProblems(error);
  const problems = { ...(touched ? own : {}), ...server };
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setTouched(true);
    setError(null);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const installed = await mcpApi.install(installRequest(source, id));
      void queries.invalidateQueries({ queryKey: serversQuery.queryKey });
      navigate(`/tools/${encodeURIComponent(installed.id)}`);
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  const fieldError = Object.keys(server).some((key) => key !== '');
  return (
    <form className="card" onSubmit={submit} aria-labelledby="install-title" data-testid="install">
      <h2 id="install-title">Install a server</h2>
      <Field label="Spec or URL" path="source" problem={problems.source} hint="npm:<package>[@version], a command line (node /path/server.mjs), or an http(s) URL">
        <input value={source} onChange={(e) => edit(setSource)(e.target.value)} spellCheck={false} autoComplete="off" data-testid="install-source" />
      </Field>
      <Field label="Id (optional)" path="id" problem={problems.id} hint="the server's name in svc and in its tools' names (<id>__<tool>); made from the spec when empty">
        <input value={id} onChange={(e) => edit(setId)(e.target.value)} spellCheck={false} autoComplete="off" data-testid="install-id" />
      </Field>
      {error !== null && !fieldError && <ErrorNote error={error} />}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || Object.keys(own).length > 0 || !access.can('write')} title={access.why('write')} data-testid="install-submit">
          {busy ? 'Installing…' : 'Install'}
        </button>
      </div>
    </form>
  );
}
