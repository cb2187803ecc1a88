// What an agent did through svc (GET /api/agents/<name>/activity): its /v1 requests and tool
// calls, attributed by X-Svc-Agent or its token, newest first; and its install log.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { AgentView } from '../../../../src/protocol/agents.js';
import { ErrorNote } from '../../components/error-note.js';
import { activityQuery, logQuery } from './queries.js';
import { DataTable } from '../../components/data-table.js';

export function AgentActivity({ name }: { name: string }) {
  const queries = useQueryClient();
  const activity = useQuery(activityQuery(name));
  const events = activity.data?.events ?? [];
  return (
    <section className="card" data-testid="agent-activity" aria-labelledby="activity-title">
      <div className="toolbar">
        <h2 id="activity-title">Recent activity</h2>
        <button type="button" onClick={() => void queries.invalidateQueries({ queryKey: activityQuery(name).queryKey })} data-testid="activity-refresh">
          Refresh
        </button>
      </div>
      {activity.error && <ErrorNote error={activity.error} />}
      {activity.data?.hint && <p className="muted">{activity.data.hint}</p>}
      {events.length > 0 && (
        <DataTable columns={['When', 'Request or tool', 'Arguments', 'Outcome']}>
          {events.map((event) => (
            <tr key={event.id} data-testid="activity-row" data-tool={event.tool}>
              <td>
                <time dateTime={event.timestamp}>{new Date(event.timestamp).toLocaleString()}</time>
              </td>
              <td>
                <code>{event.tool}</code>
                {event.gated && <span className="tag">gated</span>}
              </td>
              <td className="args">
                <code>{JSON.stringify(event.args)}</code>
              </td>
              <td className={event.outcome === 'ok' ? 'ok-text' : 'error-text'}>{event.outcome}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function AgentLog({ agent }: { agent: AgentView }) {
  const log = useQuery({ ...logQuery(agent.name), enabled: agent.status !== 'not_installed', retry: false });
  return (
    <section className="card" data-testid="agent-log" aria-labelledby="log-title">
      <h2 id="log-title">Install log</h2>
      {agent.status === 'not_installed' && <p className="muted">Not installed: no log yet.</p>}
      {log.error && <ErrorNote error={log.error} />}
      {log.data && (
        <>
          <p className="muted">
            <code>{log.data.path}</code>
          </p>
          <pre className="log">{log.data.text || '(empty)'}</pre>
        </>
      )}
    </section>
  );
}
