// One update or rollback job, live: its states fold in from the `update.*` events as they
// come; when it ends, the job and the install state are read once more for the final word.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { UpdateJob } from '../../../../src/protocol/updates.js';
import { useEvents } from '../../live.js';
import { foldJobEvent, isFinished, stepsOf } from './job.js';
import { jobQuery, updateStateQuery } from './queries.js';

export function JobView({ initial }: { initial: UpdateJob }) {
  const queries = useQueryClient();
  const query = jobQuery(initial.id);
  const { data } = useQuery({ ...query, initialData: initial });
  const job = data ?? initial;
  useEvents((event) => {
    const current = queries.getQueryData(query.queryKey) ?? initial;
    const next = foldJobEvent(current, event);
    if (!next) return;
    queries.setQueryData(query.queryKey, next);
    if (isFinished(next)) {
      void queries.invalidateQueries({ queryKey: query.queryKey });
      void queries.invalidateQueries({ queryKey: updateStateQuery.queryKey });
    }
  });
  const seen = new Set(job.history.map((step) => step.state));
  return (
    <div className="card" data-testid="update-job" data-state={job.state} aria-live="polite">
      <h2>
        {job.kind === 'update' ? 'Update' : 'Rollback'} {job.from.version} → {job.to.version}{' '}
        <span className={`state update-state-${job.state}`} data-testid="update-job-state">
          {job.state}
        </span>
      </h2>
      <p>{job.message}</p>
      {job.error && (
        <p className="error-note" role="alert" data-testid="update-job-error">
          <code>{job.error.code}</code> {job.error.message}
        </p>
      )}
      <ol className="update-steps">
        {stepsOf(job.kind).map((step) => (
          <li key={step} className={step === job.state ? 'update-step-now' : seen.has(step) ? 'update-step-done' : 'muted'}>
            {step}
          </li>
        ))}
      </ol>
      <p className="muted">job {job.id}, started {new Date(job.created_at).toLocaleString()}</p>
    </div>
  );
}
