// An installed agent's writes: Upgrade (to a version typed in, or the pinned latest) and
// Uninstall (confirmed; "purge" removes its data, the user's sessions, too). A 207
// agent.uninstall_incomplete lists what was left. Offered only for an installed agent, and
// enabled only with the write grant and host authority.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { AGENT_VERSION_PATTERN, type AgentView } from '../../../../src/protocol/agents.js';
import { ApiError } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { agentsApi } from './agents-api.js';
import { hostWriteWhy } from './host-write.js';
import { JobProgress } from './job-progress.js';

function Residual({ error }: { error: ApiError }) {
  const residual = (error.details.residual ?? []) as Array<{ path: string; reason: string }>;
  return (
    <div role="alert" data-testid="uninstall-incomplete">
      <ErrorNote error={error} />
      <ul>
        {residual.map((r) => (
          <li key={r.path}>
            <code>{r.path}</code> {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function AgentActions({ agent }: { agent: AgentView }) {
  const access = useAccess();
  const queries = useQueryClient();
  const why = hostWriteWhy(access);
  const [to, setTo] = useState('');
  const [job, setJob] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState(false);
  const [purge, setPurge] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const badVersion = to !== '' && !AGENT_VERSION_PATTERN.test(to);
  const upgrade = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      setJob((await agentsApi.upgrade(agent.name, to || undefined)).job.id);
    } catch (failure) {
      setError(failure);
    }
  };
  const uninstall = async () => {
    try {
      const answer = await agentsApi.uninstall(agent.name, purge);
      setDone(`${agent.name} ${answer.status}: removed ${answer.removed.length} path(s), kept ${answer.kept.length}`);
    } catch (failure) {
      // Uninstalled all the same, with paths left: say which, outside the dialog.
      if (!(failure instanceof ApiError && failure.status === 207)) throw failure;
      setError(failure);
    } finally {
      void queries.invalidateQueries({ queryKey: ['agents'] });
    }
  };
  if (agent.status === 'not_installed') return null;
  return (
    <section className="card" data-testid="agent-actions" aria-labelledby="actions-title">
      <h2 id="actions-title">Upgrade or uninstall</h2>
      <form className="toolbar" onSubmit={(e) => void upgrade(e)}>
        <label>
          Version <input value={to} onChange={(e) => setTo(e.target.value.trim())} placeholder="the pinned one" aria-invalid={badVersion} data-testid="upgrade-to" />
        </label>
        <button type="submit" disabled={why !== undefined || badVersion} title={why} data-testid="upgrade">
          Upgrade
        </button>
        <button type="button" className="danger" disabled={why !== undefined} title={why} onClick={() => setConfirming(true)} data-testid="uninstall">
          Uninstall…
        </button>
      </form>
      {badVersion && <p className="error-text">expected a version such as 0.73.1</p>}
      {job && <JobProgress id={job} />}
      {error instanceof ApiError && error.status === 207 ? <Residual error={error} /> : error !== null && <ErrorNote error={error} />}
      {done && <p role="status">{done}</p>}
      {confirming && (
        <Confirm
          title={`Uninstall ${agent.name}?`}
          action="Uninstall"
          onConfirm={uninstall}
          onClose={() => setConfirming(false)}
          changes={
            <>
              <ul>
                <li>
                  Removes what svc installed (<code>{agent.install_dir}</code>) and its agent file <code>{agent.config_path}</code>.
                </li>
                <li>{purge ? <>Also removes its data, the user's sessions included (<code>{agent.data_dir}</code>).</> : <>Keeps its data, the user's sessions (<code>{agent.data_dir}</code>).</>}</li>
              </ul>
              <label>
                <input type="checkbox" checked={purge} onChange={(e) => setPurge(e.target.checked)} data-testid="uninstall-purge" /> purge its data too
              </label>
            </>
          }
        />
      )}
    </section>
  );
}
