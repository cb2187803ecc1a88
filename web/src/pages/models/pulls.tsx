// The pull list (GET /api/models/pulls), live: every running job follows its own stream, with
// a bar per file (bytes, rate, ETA); a running pull can be cancelled, a cancelled or failed
// one resumed (its parts stay on disk, so a new pull picks them up) or, when it stopped before
// it had a file list, retried; a finished one dismissed (DELETE /api/models/pulls/<job>).
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { PullFileProgress, PullJobPayload } from '../../../../src/protocol/pulls.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { pullsQuery } from './queries.js';
import { useJobStream } from './pull-stream.js';
import { formatBytes, formatEta, formatRate, isResumable, isRetryable, isTerminal, percent, withJob, withoutJob } from './pull-math.js';

function Bar({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = percent(done, total);
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      <span style={{ width: `${pct}%` }} />
    </div>
  );
}

function FileRow({ file, job }: { file: PullFileProgress; job: PullJobPayload }) {
  const moving = file.state === 'downloading' && job.rate > 0;
  return (
    <li className="pull-file" data-testid={`pull-file-${file.path}`}>
      <div className="pull-line">
        <code title={file.path}>{file.path}</code>
        <span className="muted">{file.role}</span>
        <span data-testid="file-bytes">
          {formatBytes(file.bytes_done)} / {formatBytes(file.size)} · {percent(file.bytes_done, file.size)}%
        </span>
        <span className="muted">{moving ? `${formatRate(job.rate)} · ETA ${formatEta((file.size - file.bytes_done) / job.rate)}` : file.state}</span>
      </div>
      <Bar done={file.bytes_done} total={file.size} label={`${file.path} downloaded`} />
    </li>
  );
}

function PullJob({ job }: { job: PullJobPayload }) {
  useJobStream(job.model_id, !isTerminal(job.state));
  const queries = useQueryClient();
  const access = useAccess();
  const [error, setError] = useState<unknown>(null);
  const [discarding, setDiscarding] = useState(false);
  // The job does not change when its parts go, so the page remembers it did that.
  const [discarded, setDiscarded] = useState(false);
  const act = async (send: () => Promise<PullJobPayload>) => {
    setError(null);
    try {
      const next = await send();
      queries.setQueryData(pullsQuery.queryKey, (old) => ({ pulls: withJob(old?.pulls ?? [], next) }));
    } catch (failure) {
      setError(failure);
    }
  };
  const id = encodeURIComponent(job.model_id);
  const cancel = () => act(() => sendJson<PullJobPayload>('DELETE', `/api/models/${id}/pull`));
  const discard = async () => {
    await sendJson<PullJobPayload>('DELETE', `/api/models/${id}/pull?discard=true`);
    setDiscarded(true);
  };
  const resume = () => act(() => sendJson<PullJobPayload>('POST', `/api/models/${id}/pull`, { ref: job.ref, force: job.force }));
  const dismiss = async () => {
    setError(null);
    try {
      await sendJson<{ dismissed: PullJobPayload }>('DELETE', `/api/models/pulls/${encodeURIComponent(job.id)}`);
      queries.setQueryData(pullsQuery.queryKey, (old) => ({ pulls: withoutJob(old?.pulls ?? [], job.id) }));
    } catch (failure) {
      setError(failure);
    }
  };
  return (
    <article className="card pull" data-testid={`pull-${job.model_id}`} data-state={job.state}>
      <header className="pull-line">
        <h3>{job.model_id}</h3>
        <code className="muted">{job.ref}</code>
        <span className={`state pull-state-${job.state}`} data-testid="pull-state">
          {job.state}
        </span>
      </header>
      <div className="pull-line">
        <span data-testid="pull-bytes">
          {formatBytes(job.bytes_done)} / {formatBytes(job.bytes_total)} · {percent(job.bytes_done, job.bytes_total)}%
        </span>
        {!isTerminal(job.state) && (
          <span className="muted">
            {formatRate(job.rate)} · ETA {formatEta(job.eta_s)}
          </span>
        )}
        {job.resumed && <span className="muted">resumed from parts on disk</span>}
      </div>
      <Bar done={job.bytes_done} total={job.bytes_total} label={`${job.model_id} downloaded`} />
      {job.files.length > 0 && (
        <ul className="pull-files">
          {job.files.map((file) => (
            <FileRow key={file.path} file={file} job={job} />
          ))}
        </ul>
      )}
      {job.error && (
        <p className="error-note">
          <code>{job.error.code}</code> {job.error.message}
        </p>
      )}
      {error !== null && <ErrorNote error={error} />}
      <div className="actions">
        {!isTerminal(job.state) && (
          <button type="button" onClick={cancel} disabled={!access.can('write')} title={access.why('write')} data-testid="pull-cancel">
            Cancel
          </button>
        )}
        {isResumable(job) && (
          <button type="button" className="primary" onClick={resume} disabled={!access.can('write')} title={access.why('write')} data-testid="pull-resume">
            Resume
          </button>
        )}
        {isRetryable(job) && (
          <button type="button" onClick={resume} disabled={!access.can('write')} title={access.why('write')} data-testid="pull-retry">
            Retry
          </button>
        )}
        {discarded && isResumable(job) && <span className="muted">parts discarded</span>}
        {isResumable(job) && job.bytes_done > 0 && !discarded && (
          <button type="button" className="danger" onClick={() => setDiscarding(true)} disabled={!access.can('write')} title={access.why('write')} data-testid="pull-discard">
            Discard parts
          </button>
        )}
        {isTerminal(job.state) && job.id !== '' && (
          <button type="button" onClick={dismiss} disabled={!access.can('write')} title={access.can('write') ? 'take it off the list (parts on disk stay)' : access.why('write')} data-testid="pull-dismiss">
            Dismiss
          </button>
        )}
      </div>
      {discarding && (
        <Confirm
          title={`Discard the parts of ${job.model_id}?`}
          action="Discard"
          onConfirm={discard}
          onClose={() => setDiscarding(false)}
          changes={
            <p>
              The {formatBytes(job.bytes_done)} already downloaded ({job.files.map((f) => f.path).join(', ')}) are deleted from the store; pulling it again starts from
              zero.
            </p>
          }
        />
      )}
    </article>
  );
}

export function PullList() {
  const pulls = useQuery(pullsQuery);
  return (
    <section className="card" aria-labelledby="pulls-title" data-testid="pulls">
      <h2 id="pulls-title">Pulls</h2>
      {pulls.error && <ErrorNote error={pulls.error} />}
      {pulls.data?.pulls.length === 0 && <p className="muted">No pulls yet. Search Hugging Face above and pull a quant.</p>}
      <div className="pull-list">
        {[...(pulls.data?.pulls ?? [])].reverse().map((job) => (
          <PullJob key={`${job.model_id}:${job.id}`} job={job} />
        ))}
      </div>
    </section>
  );
}
