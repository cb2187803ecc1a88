// The Updates page: the running version and where it runs from, the channel, a check against
// the npm registry, an apply (to the channel's newest or another published version) and a
// rollback, each confirmed with from → to; the job's states follow live from the event stream.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UpdateJob, UpdateStatePayload } from '../../../../src/protocol/updates.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { useEvents } from '../../live.js';
import { useTitle } from '../../router.js';
import { ChannelForm } from './channel-form.js';
import { CheckCard } from './check-card.js';
import { changesOf, isFinished } from './job.js';
import { JobView } from './job-view.js';
import { updateStateQuery } from './queries.js';
import './updates.css';

function InstallFacts({ state }: { state: UpdateStatePayload }) {
  return (
    <dl className="facts" data-testid="update-state">
      <dt>version</dt>
      <dd data-testid="update-version">{state.version}</dd>
      <dt>runs from</dt>
      <dd title={state.running_tree}>{state.running_tree}</dd>
      <dt>install prefix</dt>
      <dd title={state.prefix}>{state.prefix}</dd>
      <dt>current</dt>
      <dd>{state.current ?? <span className="muted">none (no update installed yet)</span>}</dd>
      <dt>previous</dt>
      <dd data-testid="update-previous">{state.previous ? `${state.previous.version} (${state.previous.path})` : <span className="muted">none: nothing to roll back to</span>}</dd>
      <dt>installed</dt>
      <dd>{state.installed_versions.length > 0 ? state.installed_versions.join(', ') : <span className="muted">none</span>}</dd>
    </dl>
  );
}

function Rollback({ state, blocked, onStarted }: { state: UpdateStatePayload; blocked: string | undefined; onStarted: (job: UpdateJob) => void }) {
  const [confirming, setConfirming] = useState(false);
  const previous = state.previous;
  const why = blocked ?? (previous ? undefined : 'no previous version is recorded: no update has run here');
  const rollback = async () => onStarted(await sendJson<UpdateJob>('POST', '/api/updates/rollback'));
  return (
    <>
      <button type="button" className="danger" onClick={() => setConfirming(true)} disabled={why !== undefined} title={why} data-testid="update-rollback">
        {previous ? `Roll back to ${previous.version}` : 'Roll back'}
      </button>
      {confirming && previous && (
        <Confirm
          title={`Roll back svc ${state.version} → ${previous.version}?`}
          changes={<ul>{changesOf('rollback', state.version, previous.version).map((line) => <li key={line}>{line}</li>)}</ul>}
          action="Roll back"
          onConfirm={rollback}
          onClose={() => setConfirming(false)}
        />
      )}
    </>
  );
}

export default function Page() {
  useTitle('Updates');
  const access = useAccess();
  const queries = useQueryClient();
  const state = useQuery(updateStateQuery);
  const [started, setStarted] = useState<UpdateJob | null>(null);
  // A job started elsewhere (svc update on the host) shows up too.
  useEvents((event) => {
    if (event.type === 'update.started') void queries.invalidateQueries({ queryKey: updateStateQuery.queryKey });
  });
  const job = started ?? state.data?.active_job ?? null;
  const running = job !== null && !isFinished(job) ? `job ${job.id} is ${job.state}; one job at a time` : undefined;
  const blocked = access.hostAuthority ? running : 'host-only: run svc update on the host, or use an admin token';
  return (
    <section className="page">
      <h1>Updates</h1>
      <div className="columns">
        <div className="card">
          <h2>This installation</h2>
          {state.error && <ErrorNote error={state.error} />}
          {state.data && <InstallFacts state={state.data} />}
          {state.data && (
            <div className="actions">
              <Rollback state={state.data} blocked={blocked} onStarted={setStarted} />
            </div>
          )}
        </div>
        <div className="card">
          <h2>Channel</h2>
          <ChannelForm />
        </div>
      </div>
      <CheckCard blocked={blocked} onStarted={setStarted} />
      {job && <JobView key={job.id} initial={job} />}
    </section>
  );
}
