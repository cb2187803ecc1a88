// An apply under way and after: a bar of converged slots out of those expected, each slot's
// result as its event arrives, and once done, whether each slot now matches the stack.
import { useQuery } from '@tanstack/react-query';
import type { StackApplyPayload } from '../../../../src/protocol/stacks.js';
import { ApiError } from '../../api-error.js';
import { ErrorNote } from '../../components/error-note.js';
import { slotsQuery } from '../../queries.js';
import { fractionDone, type ApplyProgress } from './apply-progress.js';
import { slotMatches } from './plan-format.js';
import { DataTable } from '../../components/data-table.js';

/** A slot's convergence time: ms under a second, else seconds. */
const formatMs = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

const PHASE_WORDS = { idle: '', started: 'checking and writing the slot files…', committed: 'files written; converging the slots…', done: 'done', failed: 'failed' };

function SlotsNow({ plan }: { plan: StackApplyPayload }) {
  const slots = useQuery(slotsQuery);
  if (slots.error) return <ErrorNote error={slots.error} />;
  const matches = slotMatches(plan.changes, slots.data?.slots ?? []);
  return (
    <DataTable columns={['slot', 'stack wants', 'running', 'state', 'matches']} testId="slots-now" caption="The slots now">
      {matches.map((m) => (
        <tr key={m.slot} data-testid={`match-${m.slot}`} data-match={String(m.matches)}>
          <td>{m.slot}</td>
          <td>{m.wanted}</td>
          <td>{m.live ?? '—'}</td>
          <td>{m.state ? <span className={`state state-${m.state}`}>{m.state}</span> : '—'}</td>
          <td>{m.matches ? 'yes' : 'no'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function ApplyProgressView({ progress, plan, error, onPlanAgain }: { progress: ApplyProgress; plan: StackApplyPayload | null; error: unknown; onPlanAgain: () => void }) {
  const percent = Math.round(fractionDone(progress) * 100);
  return (
    <div className="card" data-testid="apply-progress" data-phase={progress.phase} data-events={progress.events} aria-live="polite">
      <h2>
        Applying: {PHASE_WORDS[progress.phase]}
        {progress.phase === 'done' && progress.failed.length > 0 && ` (${progress.failed.length} failed: ${progress.failed.join(', ')})`}
      </h2>
      <div className="progress" role="progressbar" aria-label="slots converged" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
        <span style={{ width: `${percent}%` }} />
      </div>
      <ul className="apply-results">
        {progress.results.map((result) => (
          <li key={result.slot} data-testid={`result-${result.slot}`} data-ok={String(result.ok)}>
            <strong>{result.slot}</strong> {result.runtime} → <span className={`state state-${result.state}`}>{result.state}</span> <span className="muted">{formatMs(result.ms)}</span>
            {result.error && (
              <span className="error-note">
                <code>{result.error.code}</code> {result.error.message}
              </span>
            )}
          </li>
        ))}
      </ul>
      {progress.code && !error && <ErrorNote error={new ApiError(progress.code, 'the apply was refused or failed; the slot files are as they were or wholly the new set')} />}
      {error !== null && <ErrorNote error={error} />}
      {progress.phase === 'done' && plan && <SlotsNow plan={plan} />}
      {(progress.phase === 'done' || progress.phase === 'failed') && (
        <div className="actions">
          <button type="button" onClick={onPlanAgain}>
            Plan again
          </button>
        </div>
      )}
    </div>
  );
}
