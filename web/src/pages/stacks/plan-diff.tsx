// A stack apply's dry-run plan: the summary, then per slot what happens to its file (the
// fields before and after, as a diff) and to its engine; the slots it unloads; the models and
// the memory estimate; and what the guards would refuse.
import type { StackApplyPayload, StackSlotPlan } from '../../../../src/protocol/stacks.js';
import { formatMb } from '../../format.js';
import { formatValue, RUNTIME_WORDS } from './plan-format.js';

function SlotDiff({ change }: { change: StackSlotPlan }) {
  return (
    <article className="card plan-slot" data-testid={`plan-${change.slot}`} data-action={change.action} data-runtime={change.runtime}>
      <header>
        <h3>{change.slot}</h3>
        <span className="badge">{change.action}</span>
        <span className="badge">{RUNTIME_WORDS[change.runtime]}</span>
      </header>
      {change.capability && (
        <p className="muted">
          serves {change.capability} for {change.parent}
        </p>
      )}
      {change.fields.length === 0 ? (
        <p className="muted">No field changes.</p>
      ) : (
        <pre className="log plan-diff" aria-label={`changes to slot ${change.slot}`}>
          {change.fields.map((field) => (
            <span key={field.key} data-key={field.key}>
              {field.before !== null && <span className="diff-del">{`- ${field.key} = ${formatValue(field.before)}\n`}</span>}
              <span className="diff-add">{`+ ${field.key} = ${formatValue(field.after)}\n`}</span>
            </span>
          ))}
        </pre>
      )}
    </article>
  );
}

export function PlanDiff({ plan }: { plan: StackApplyPayload }) {
  const { memory } = plan;
  return (
    <div data-testid="plan">
      <p data-testid="plan-summary">{plan.summary}</p>
      {plan.problems && plan.problems.length > 0 && (
        <div className="error-note" role="alert" data-testid="plan-problems">
          <strong>The apply would be refused:</strong>
          <ul>
            {plan.problems.map((problem) => (
              <li key={`${problem.slot}-${problem.guard}-${problem.message}`}>
                <code>{problem.slot}</code> ({problem.guard}): {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="cards">
        {plan.changes.map((change) => (
          <SlotDiff key={change.slot} change={change} />
        ))}
        {plan.unloads.map((slot) => (
          <article key={slot} className="card plan-slot" data-testid={`plan-${slot}`} data-runtime="unload">
            <header>
              <h3>{slot}</h3>
              <span className="badge">{RUNTIME_WORDS.unload}</span>
            </header>
            <p className="muted">Running now and not in this stack.</p>
          </article>
        ))}
      </div>
      <dl className="facts plan-facts">
        <dt>models</dt>
        <dd>{plan.models.map((model) => `${model.id} (${model.status})`).join(', ') || '—'}</dd>
        <dt>memory</dt>
        <dd className={memory.fits ? '' : 'warn-note'}>
          needs about {formatMb(memory.needed_mb)} of {formatMb(memory.budget_mb)} free{memory.fits ? '' : ': may not fit'}
          {memory.unknown.length > 0 && ` (size unknown: ${memory.unknown.join(', ')})`}
        </dd>
      </dl>
    </div>
  );
}
