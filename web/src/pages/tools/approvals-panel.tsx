// The calls waiting for a decision (the shared approvals query, kept live by approval.* events
// from the one event stream): each with its tool, arguments, client, age and time left, and
// Approve / Deny. An approved call runs at once; the answer says how it ended.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApprovalEntry } from '../../../../src/protocol/mcp.js';
import { useAccess } from '../../access.js';
import { approvalsQuery, foldApproval } from '../../approvals.js';
import { ErrorNote } from '../../components/error-note.js';
import { formatDuration } from '../../format.js';
import { mcpApi } from './mcp-api.js';
import { useNow } from './use-now.js';
import { DataTable } from '../../components/data-table.js';

type Decision = 'approve' | 'deny';

function Outcome({ entry }: { entry: ApprovalEntry }) {
  return (
    <p className="muted" role="status" data-testid="approval-outcome">
      <code>{entry.tool}</code> {entry.state}
      {entry.error && <>: {entry.error}</>}
    </p>
  );
}

function ApprovalRow({ entry, now, onDecided }: { entry: ApprovalEntry; now: number; onDecided: (entry: ApprovalEntry) => void }) {
  const access = useAccess();
  const [busy, setBusy] = useState<Decision | null>(null);
  const [error, setError] = useState<unknown>(null);
  const decide = async (decision: Decision) => {
    setBusy(decision);
    setError(null);
    try {
      onDecided((await mcpApi.decide(entry.id, decision)).approval);
    } catch (failure) {
      setError(failure);
      setBusy(null);
    }
  };
  const left = (Date.parse(entry.expires_at) - now) / 1000;
  const locked = busy !== null || !access.can('write');
  return (
    <tr data-testid={`approval-${entry.id}`} data-tool={entry.tool}>
      <td>
        <code>{entry.tool}</code>
        {entry.hit_count > 1 && <span className="muted"> ×{entry.hit_count}</span>}
      </td>
      <td className="args">
        <code>{JSON.stringify(entry.args)}</code>
      </td>
      <td>{entry.client_id}</td>
      <td>{formatDuration((now - Date.parse(entry.enqueued_at)) / 1000)}</td>
      <td>{left > 0 ? `in ${formatDuration(left)}` : 'expiring'}</td>
      <td>
        <div className="row-actions">
          <button type="button" className="primary" disabled={locked} title={access.why('write')} onClick={() => void decide('approve')} data-testid="approve">
            {busy === 'approve' ? 'Approving…' : 'Approve'}
          </button>
          <button type="button" className="danger" disabled={locked} title={access.why('write')} onClick={() => void decide('deny')} data-testid="deny">
            {busy === 'deny' ? 'Denying…' : 'Deny'}
          </button>
        </div>
        {error !== null && <ErrorNote error={error} />}
      </td>
    </tr>
  );
}

export function ApprovalsPanel() {
  const queries = useQueryClient();
  const access = useAccess();
  const approvals = useQuery({ ...approvalsQuery, enabled: access.can('read') });
  const now = useNow();
  const [last, setLast] = useState<ApprovalEntry | null>(null);
  const decided = (entry: ApprovalEntry) => {
    setLast(entry);
    queries.setQueryData(approvalsQuery.queryKey, (old) => old && { approvals: foldApproval(old.approvals, entry) });
  };
  const pending = approvals.data?.approvals ?? [];
  return (
    <section className="card" data-testid="approvals" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals {pending.length > 0 && <span className="nav-badge">{pending.length}</span>}</h2>
      {approvals.error && <ErrorNote error={approvals.error} />}
      {approvals.data && pending.length === 0 && <p className="muted">No call waits for a decision. Calls to a gated tool wait here until approved, denied or expired.</p>}
      {pending.length > 0 && (
        <DataTable columns={['Tool', 'Arguments', 'Client', 'Waiting', 'Expires', 'Decision']} testId="approval-table">
          {pending.map((entry) => (
            <ApprovalRow key={entry.id} entry={entry} now={now} onDecided={decided} />
          ))}
        </DataTable>
      )}
      {last && <Outcome entry={last} />}
    </section>
  );
}
