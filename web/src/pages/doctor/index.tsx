// The Doctor page: runs the `svc doctor` battery in the gateway (GET /api/doctor) on a button
// and shows every check with its status, what it found, and how to fix what is not ok.
// Not run on opening: it takes a few seconds and loads the built-in engine in a child process.
import { useMutation } from '@tanstack/react-query';
import type { DoctorPayload } from '../../../../src/protocol/doctor-wire.js';
import { getJson } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import { useTitle } from '../../router.js';
import { STATUS_WORD, summaryOf, worstFirst } from './summary.js';
import './doctor.css';

function Checks({ payload, at }: { payload: DoctorPayload; at: Date }) {
  return (
    <>
      <p className={payload.ok ? undefined : 'sev-error'} data-testid="doctor-summary" role="status">
        {summaryOf(payload)} <span className="muted">(run at {at.toLocaleTimeString()})</span>
      </p>
      <ul className="doctor-checks" data-testid="doctor-checks">
        {worstFirst(payload.checks).map((check) => (
          <li key={check.id} className={`card doctor-${check.status}`} data-testid="doctor-check" data-id={check.id} data-status={check.status}>
            <span className={`state doctor-status doctor-status-${check.status}`}>{STATUS_WORD[check.status]}</span>
            <code className="doctor-id">{check.id}</code>
            <span className="doctor-message">{check.message}</span>
            {check.hint && (
              <span className="doctor-hint" data-testid="doctor-hint">
                <strong>Fix:</strong> {check.hint}
              </span>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}

export default function Page() {
  useTitle('Doctor');
  const run = useMutation({ mutationFn: () => getJson<DoctorPayload>('/api/doctor') });
  return (
    <section className="page">
      <h1>Doctor</h1>
      <p className="muted">
        The preflight checks of <code>svc doctor</code>, run by the gateway on this home: configuration, writable directories, disk, ports, engines, devices, memory, service, proxy,
        updates and clock. It changes nothing.
      </p>
      <div className="toolbar">
        <button type="button" className="primary" onClick={() => run.mutate()} disabled={run.isPending} data-testid="doctor-run">
          {run.isPending ? 'Running checks…' : run.data ? 'Run again' : 'Run checks'}
        </button>
      </div>
      {run.error && <ErrorNote error={run.error} />}
      {run.data && <Checks payload={run.data} at={new Date(run.submittedAt)} />}
    </section>
  );
}
