// An install, switch or upgrade as it runs: its steps, live (GET /api/agents/jobs/<id>, read
// again on every agent.install.* event), and how it ended.
import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { ApiError } from '../../api-error.js';
import { jobQuery } from './queries.js';

export function JobProgress({ id }: { id: string }) {
  const { data, error } = useQuery(jobQuery(id));
  if (error) return <ErrorNote error={error} />;
  const job = data?.job;
  if (!job) return <p className="muted" aria-busy="true">Starting…</p>;
  return (
    <div className="job" data-testid={`job-${job.agent}`} data-state={job.state} role="status">
      <p>
        <strong>
          {job.action} {job.agent}
        </strong>
        : {job.state === 'running' ? 'running…' : job.state === 'done' ? `done${job.version ? `, version ${job.version}` : ''}` : 'failed'}
      </p>
      <ol className="steps">
        {job.steps.map((step, index) => (
          <li key={index}>
            <code>{step.step}</code> {step.message}
          </li>
        ))}
      </ol>
      {job.error && <ErrorNote error={new ApiError(job.error.code, job.error.message, job.error.details)} />}
    </div>
  );
}
