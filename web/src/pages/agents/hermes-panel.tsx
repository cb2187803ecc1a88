// hermes's provisioning and personas (docs/agents.md "hermes"): each phase of the last run in
// order (GET /api/agents/hermes/provision) with its status and reason, and the personas with
// Activate. Before the first run (or on a gateway without these routes) a note says so.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { agentsApi, type PersonaActivation } from './agents-api.js';
import { personasQuery, provisionQuery } from './queries.js';

/** A read that 404s: not provisioned yet, or a gateway without the route. */
function Missing({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && error.status === 404) {
    const note = error.code === 'agent.not_provisioned' || error.code === 'agent.persona_not_found' ? error.message : `this gateway has no ${what} route (${error.code})`;
    return (
      <p className="muted" data-testid={`${what}-missing`}>
        {note}
      </p>
    );
  }
  return <ErrorNote error={error} />;
}

export function ProvisionPhases({ name }: { name: string }) {
  const provision = useQuery(provisionQuery(name));
  const record = provision.data;
  return (
    <section className="card" data-testid="provision" aria-labelledby="provision-title">
      <h2 id="provision-title">Last provision</h2>
      {provision.error && <Missing error={provision.error} what="provision" />}
      {record && (
        <>
          <p className="muted">
            {new Date(record.started_at).toLocaleString()} → {new Date(record.completed_at).toLocaleString()} · hermes {record.hermes_version ?? 'not found'} · <code>{record.hermes_home}</code>
          </p>
          <ol className="phases">
            {Object.entries(record.phases).map(([phase, result]) => (
              <li key={phase} data-testid={`phase-${phase}`} data-status={result?.status}>
                <code>{phase}</code> <span className={`phase-status phase-${result?.status ?? 'none'}`}>{result?.status ?? '—'}</span>
                {result?.fatal && <span className="tag tag-bad">fatal</span>}
                {result?.reason && <span className="muted"> {result.reason}</span>}
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

export function Personas({ name }: { name: string }) {
  const access = useAccess();
  const queries = useQueryClient();
  const personas = useQuery(personasQuery(name));
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [last, setLast] = useState<PersonaActivation | null>(null);
  const activate = async (id: string) => {
    setBusy(id);
    setError(null);
    try {
      setLast(await agentsApi.activate(name, id));
      void queries.invalidateQueries({ queryKey: personasQuery(name).queryKey });
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="card" data-testid="personas" aria-labelledby="personas-title">
      <h2 id="personas-title">Personas</h2>
      {personas.error && <Missing error={personas.error} what="personas" />}
      {personas.data && personas.data.count === 0 && <p className="muted">No persona yet: provisioning seeds three.</p>}
      <ul className="personas">
        {(personas.data?.personas ?? []).map((p) => (
          <li key={p.id} data-testid={`persona-${p.id}`} data-active={p.active}>
            <strong>{p.display_name}</strong> <code>{p.id}</code> {p.active && <span className="tag">active</span>}
            <div className="muted">{p.summary}</div>
            {!p.active && (
              <button type="button" disabled={busy !== null || !access.can('write')} title={access.why('write')} onClick={() => void activate(p.id)}>
                {busy === p.id ? 'Activating…' : 'Activate'}
              </button>
            )}
          </li>
        ))}
      </ul>
      {error !== null && <ErrorNote error={error} />}
      {last && (
        <p role="status" data-testid="persona-activated">
          {last.display_name} is active; {last.hot_reload.ok ? 'the agent reloaded it.' : `the reload nudge failed (${last.hot_reload.error ?? 'no answer'}): it applies at the agent's next start.`}
        </p>
      )}
    </section>
  );
}
