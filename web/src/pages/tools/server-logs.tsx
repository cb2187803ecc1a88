// A stdio server's stderr, the last lines the supervisor keeps (GET /api/mcp/<id>/logs), read
// again when the server's state settles and on Refresh.
import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { logsQuery } from './queries.js';

export function ServerLogs({ id }: { id: string }) {
  const logs = useQuery(logsQuery(id));
  const view = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (view.current) view.current.scrollTop = view.current.scrollHeight;
  }, [logs.data]);
  const lines = logs.data?.lines ?? [];
  return (
    <div className="card">
      <div className="toolbar">
        <h2>Logs</h2>
        <button type="button" onClick={() => void logs.refetch()} disabled={logs.isFetching} data-testid="logs-refresh">
          {logs.isFetching ? 'Reading…' : 'Refresh'}
        </button>
      </div>
      {logs.error && <ErrorNote error={logs.error} />}
      <pre ref={view} className="log" role="log" aria-label={`logs of ${id}`} tabIndex={0} data-testid="server-logs">
        {lines.length === 0 ? <span className="muted">no lines: a server writes here (its stderr) once it runs</span> : lines.join('\n')}
      </pre>
    </div>
  );
}
