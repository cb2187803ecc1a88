// The log's rows: when, what, on what, by whom, how it ended, and its details on demand.
import type { ShownRow } from './live-tail.js';
import { DataTable } from '../../components/data-table.js';

function Details({ details }: { details: Record<string, unknown> }) {
  if (Object.keys(details).length === 0) return null;
  return (
    <details>
      <summary>details</summary>
      <pre className="log">{JSON.stringify(details, null, 2)}</pre>
    </details>
  );
}

export function ActivityTable({ rows }: { rows: ShownRow[] }) {
  return (
    <DataTable columns={['Time', 'Type', 'Target', 'Actor', 'Outcome', 'Message']} testId="activity-table" className="activity-table">
      {rows.map((row) => (
        <tr key={row.key} data-testid="activity-row" data-action={row.action} data-target={row.target} data-live={row.live || undefined} className={row.live ? 'activity-live' : undefined}>
          <td>
            <time dateTime={row.ts} title={row.ts}>
              {new Date(row.ts).toLocaleString()}
            </time>
          </td>
          <td>
            <code>{row.action}</code>
            {row.kind === 'event' && <span className="muted"> (event)</span>}
          </td>
          <td>{row.target || <span className="muted">—</span>}</td>
          <td>{row.actor}</td>
          <td className={row.outcome === 'error' ? 'sev-error' : undefined}>{row.outcome}</td>
          <td className="activity-message">
            {row.message}
            <Details details={row.details} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
