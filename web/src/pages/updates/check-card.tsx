// The registry check, on a button: the running version, what the channel offers, and the
// apply that goes there (or to another published version), confirmed with from → to.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lt } from 'semver';
import { ApplyUpdateRequestSchema, type UpdateCheckPayload, type UpdateJob } from '../../../../src/protocol/updates.js';
import { sendJson } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import { Confirm } from '../../components/confirm.js';
import { Field } from '../../components/field.js';
import { changesOf } from './job.js';
import { checkVerdict } from './verdict.js';
import { checkQuery, updateStateQuery } from './queries.js';

interface ApplyProps {
  check: UpdateCheckPayload;
  /** Why apply is not possible here (not host authority, a job running), or undefined. */
  blocked: string | undefined;
  onStarted: (job: UpdateJob) => void;
}

function ApplyForm({ check, blocked, onStarted }: ApplyProps) {
  const queries = useQueryClient();
  const others = check.versions.filter((version) => version !== check.current);
  const [target, setTarget] = useState(check.update_available && check.latest ? check.latest : (others[0] ?? ''));
  const [confirming, setConfirming] = useState(false);
  const downgrade = target !== '' && lt(target, check.current);
  const request = ApplyUpdateRequestSchema.safeParse({ version: target, allow_downgrade: downgrade });
  const apply = async () => {
    if (!request.success) return;
    const job = await sendJson<UpdateJob>('POST', '/api/updates/apply', request.data);
    onStarted(job);
    void queries.invalidateQueries({ queryKey: updateStateQuery.queryKey });
  };
  if (others.length === 0) return null;
  return (
    <div className="update-apply">
      <Field label="Version to install" problem={request.success ? undefined : request.error.issues[0]?.message} hint={downgrade ? `older than ${check.current}: a downgrade may undo security fixes` : undefined}>
        <select value={target} onChange={(event) => setTarget(event.target.value)} data-testid="update-target">
          {others.map((version) => (
            <option key={version} value={version}>
              {version}
              {version === check.latest ? ` (${check.channel})` : ''}
            </option>
          ))}
        </select>
      </Field>
      <button type="button" className={downgrade ? 'danger' : 'primary'} onClick={() => setConfirming(true)} disabled={!request.success || blocked !== undefined} title={blocked} data-testid="update-apply">
        {downgrade ? `Downgrade to ${target}` : `Update to ${target}`}
      </button>
      {confirming && (
        <Confirm
          title={`${downgrade ? 'Downgrade' : 'Update'} svc ${check.current} → ${target}?`}
          changes={
            <ul data-testid="update-changes">
              {changesOf('update', check.current, target).map((line) => <li key={line}>{line}</li>)}
            </ul>
          }
          action={downgrade ? 'Downgrade' : 'Update'}
          danger={downgrade}
          onConfirm={apply}
          onClose={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

export function CheckCard({ blocked, onStarted }: Omit<ApplyProps, 'check'>) {
  const check = useQuery(checkQuery);
  return (
    <div className="card">
      <h2>Check for updates</h2>
      <div className="toolbar">
        <button type="button" onClick={() => void check.refetch()} disabled={check.isFetching} data-testid="update-check">
          {check.isFetching ? 'Asking the registry…' : check.data || check.error ? 'Check again' : 'Check for updates'}
        </button>
      </div>
      {check.error && <ErrorNote error={check.error} />}
      {check.data && (
        <>
          <dl className="facts" data-testid="update-check-result" data-available={String(check.data.update_available)}>
            <dt>running</dt>
            <dd>{check.data.current}</dd>
            <dt>{check.data.channel} offers</dt>
            <dd data-testid="update-latest">{check.data.latest ?? (check.data.published ? 'no version on this channel yet' : `${check.data.package} is not on this registry`)}</dd>
            <dt>registry</dt>
            <dd title={check.data.registry}>{check.data.registry}</dd>
          </dl>
          <p data-testid="update-verdict" data-verdict={checkVerdict(check.data).kind} className={check.data.update_available ? undefined : 'muted'}>
            {checkVerdict(check.data).text}
          </p>
          <ApplyForm key={check.dataUpdatedAt} check={check.data} blocked={blocked} onStarted={onStarted} />
        </>
      )}
    </div>
  );
}
