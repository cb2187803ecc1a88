// /agents: the installed agents (status, version, the running or last job) and the ones svc can
// install, each with Install… (a confirmation saying what runs on the host, then the job's
// progress live). Installing runs npm or a runtime on the gateway's host: without the write
// grant and host authority the button is disabled, saying why.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AgentKindWire, AgentView } from '../../../../src/protocol/agents.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { Link } from '../../router.js';
import { agentsApi } from './agents-api.js';
import { hostWriteWhy } from './host-write.js';
import { JobProgress } from './job-progress.js';
import { agentsQuery } from './queries.js';
import { DataTable } from '../../components/data-table.js';

const WHAT_RUNS: Record<AgentKindWire, string> = {
  cli: 'npm installs its pinned version into <state>/agents/<name> (never globally) and svc writes its configuration, wired to this gateway.',
  daemon: 'svc runs its 16 provisioning phases (the runtime, its home, its configuration, a systemd unit) on this host.',
};

function InstalledRow({ agent }: { agent: AgentView }) {
  return (
    <tr data-testid={`agent-row-${agent.name}`} data-status={agent.status}>
      <td>
        <Link to={`/agents/${encodeURIComponent(agent.name)}`}>{agent.name}</Link>
      </td>
      <td>{agent.kind}</td>
      <td className={agent.status === 'broken' ? 'error-text' : undefined}>{agent.status}</td>
      <td>{agent.version ?? '—'}</td>
      <td>{agent.job ? `${agent.job.action}: ${agent.job.state}` : '—'}</td>
    </tr>
  );
}

export function AgentList() {
  const access = useAccess();
  const queries = useQueryClient();
  const agents = useQuery(agentsQuery);
  const [chosen, setChosen] = useState<{ name: string; kind: AgentKindWire } | null>(null);
  const [jobs, setJobs] = useState<string[]>([]);
  const installed = agents.data?.agents ?? [];
  const installable = (agents.data?.available ?? []).filter((a) => !installed.some((i) => i.name === a.name));
  const why = hostWriteWhy(access);
  const install = async (name: string) => {
    const { job } = await agentsApi.install({ name });
    setJobs((old) => [job.id, ...old.filter((id) => id !== job.id)]);
    void queries.invalidateQueries({ queryKey: ['agents'] });
  };
  return (
    <div className="stack">
      <section className="card" data-testid="agents-installed" aria-labelledby="installed-title">
        <h2 id="installed-title">Installed</h2>
        {agents.error && <ErrorNote error={agents.error} />}
        {agents.data && installed.length === 0 && <p className="muted">No agent is installed yet.</p>}
        {installed.length > 0 && (
          <DataTable columns={['Agent', 'Kind', 'Status', 'Version', 'Last job']}>
            {installed.map((agent) => (
              <InstalledRow key={agent.name} agent={agent} />
            ))}
          </DataTable>
        )}
      </section>
      <section className="card" data-testid="agents-available" aria-labelledby="available-title">
        <h2 id="available-title">Available</h2>
        {agents.data && installable.length === 0 && <p className="muted">Every agent svc knows is installed.</p>}
        <ul className="available">
          {installable.map((agent) => (
            <li key={agent.name} data-testid={`available-${agent.name}`}>
              <Link to={`/agents/${encodeURIComponent(agent.name)}`}>{agent.name}</Link> <span className="muted">({agent.kind})</span>{' '}
              <button type="button" disabled={why !== undefined} title={why} onClick={() => setChosen(agent)} aria-label={`install ${agent.name}`} data-testid={`install-${agent.name}`}>
                Install…
              </button>
            </li>
          ))}
        </ul>
        {jobs.map((id) => (
          <JobProgress key={id} id={id} />
        ))}
      </section>
      {chosen && (
        <Confirm
          title={`Install ${chosen.name}?`}
          action="Install"
          danger={false}
          onConfirm={() => install(chosen.name)}
          onClose={() => setChosen(null)}
          changes={
            <ul>
              <li>{WHAT_RUNS[chosen.kind].replace('<name>', chosen.name)}</li>
              <li>It runs as a job: its steps appear here as they happen (an npm install takes a while).</li>
            </ul>
          }
        />
      )}
    </div>
  );
}
