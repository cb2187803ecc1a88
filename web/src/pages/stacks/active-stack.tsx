// Which stack was applied last, and whether the slot files drifted from it since (the slots
// edited, added or removed by hand), live from the slot and stack events.
import { useQuery } from '@tanstack/react-query';
import { ErrorNote } from '../../components/error-note.js';
import { Link } from '../../router.js';
import { activeStackQuery } from './queries.js';

export function ActiveStack() {
  const active = useQuery(activeStackQuery);
  if (active.error) return <ErrorNote error={active.error} />;
  if (!active.data) return <p className="muted">Loading…</p>;
  const { status, stack, applied_at, drifted } = active.data;
  if (status === 'none' || stack === null) {
    return (
      <p className="muted" data-testid="active-stack" data-status="none">
        No stack applied yet: the slots are as their files say.
      </p>
    );
  }
  return (
    <div className="card" data-testid="active-stack" data-status={status} data-stack={stack}>
      <dl className="facts">
        <dt>stack</dt>
        <dd>
          <strong>{stack}</strong> <span className={`drift drift-${status}`}>{status === 'clean' ? 'as applied' : 'drifted'}</span>
        </dd>
        <dt>applied</dt>
        <dd>{applied_at ? <time dateTime={applied_at}>{new Date(applied_at).toLocaleString()}</time> : '—'}</dd>
        {status === 'modified' && (
          <>
            <dt>drifted slots</dt>
            <dd data-testid="drifted">{drifted.join(', ') || '—'}</dd>
          </>
        )}
      </dl>
      {status === 'modified' && (
        <p className="warn-note">
          These slot files changed since the apply. Applying <Link to={`/stacks/apply/${encodeURIComponent(stack)}`}>{stack}</Link> again puts them back.
        </p>
      )}
    </div>
  );
}
