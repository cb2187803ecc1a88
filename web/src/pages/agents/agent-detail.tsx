// /agents/<name>: one agent (installed or not): its facts, upgrade and uninstall, its recent
// activity, its install log and, for hermes, the phases of its last provision and its personas.
import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { Link } from '../../router.js';
import { AgentActions } from './agent-actions.js';
import { AgentActivity, AgentLog } from './agent-activity.js';
import { Personas, ProvisionPhases } from './hermes-panel.js';
import { JobProgress } from './job-progress.js';
import { agentQuery } from './queries.js';

export function AgentDetail({ name }: { name: string }) {
  const view = useQuery(agentQuery(name));
  const agent = view.data;
  return (
    <div className="stack">
      <p className="crumbs">
        <Link to="/agents">Agents</Link> / {name}
      </p>
      {view.error && <ErrorNote error={view.error} />}
      {agent && (
        <section className="card" data-testid="agent-facts" data-status={agent.status}>
          <h1>
            {agent.name} <span className="tag">{agent.kind}</span>
          </h1>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="agent-status">{agent.status}</dd>
            <dt>Version</dt>
            <dd>
              {agent.version ?? '—'}
              {agent.version_pin && ' (pinned)'}
            </dd>
            {agent.installed_at && (
              <>
                <dt>Installed</dt>
                <dd>{new Date(agent.installed_at).toLocaleString()}</dd>
              </>
            )}
            <dt>Files</dt>
            <dd>
              <code>{agent.install_dir}</code>, data <code>{agent.data_dir}</code>
            </dd>
            {agent.unit_active !== null && (
              <>
                <dt>Unit</dt>
                <dd>{agent.unit_active ? 'running' : 'stopped'}</dd>
              </>
            )}
          </dl>
          {agent.problems.length > 0 && (
            <ul className="error-text">
              {agent.problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )}
          {agent.job && <JobProgress id={agent.job.id} />}
          {agent.status === 'not_installed' && <p className="muted">Not installed: install it from the <Link to="/agents">Agents</Link> list.</p>}
        </section>
      )}
      {agent && <AgentActions agent={agent} />}
      <AgentActivity name={name} />
      {agent && <AgentLog agent={agent} />}
      {agent?.kind === 'daemon' && <ProvisionPhases name={name} />}
      {agent?.kind === 'daemon' && <Personas name={name} />}
    </div>
  );
}
