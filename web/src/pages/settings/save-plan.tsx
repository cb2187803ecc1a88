// What a save will change and how each change takes effect (GET /api/settings/apply-plan
// for exactly the changed keys), shown in the confirm dialog before anything is written.
import type { ApplyPlan } from '../../../../src/protocol/settings-wire.js';
import { applyWords, shown, type Change } from './edits.js';

export interface PlannedSave {
  changes: Change[];
  plan: ApplyPlan;
}

export function SavePlan({ changes, plan, runningSlots }: PlannedSave & { runningSlots: readonly string[] }) {
  const restarts = Object.entries(plan.restart);
  return (
    <div data-testid="save-plan">
      <ul className="save-plan">
        {changes.map(({ key, before, after }) => (
          <li key={key} data-key={key}>
            <code>{key}</code>: <span className="diff-del">{shown(before)}</span> → <span className="diff-add">{shown(after)}</span>
            <br />
            <small className="muted" data-testid={`plan-${key}`}>
              {applyWords(plan.keys[key] ?? 'manual', runningSlots)}
            </small>
          </li>
        ))}
      </ul>
      {plan.live.length > 0 && <p>Applies at once: {plan.live.join(', ')}.</p>}
      {restarts.map(([service, keys]) => (
        <p key={service} data-testid={`plan-restart-${service}`}>
          Restart of <strong>{service}</strong> needed for {keys.join(', ')}
          {service === 'slots' && runningSlots.length > 0 && <>: the running slots {runningSlots.join(', ')} keep the old value until they restart</>}.
        </p>
      ))}
      {plan.manual.length > 0 && (
        <p className="warn-note" data-testid="plan-manual">
          <strong>Manual restart:</strong> {plan.manual.join(', ')} take{plan.manual.length === 1 ? 's' : ''} effect only after you restart svc
          yourself (<code>svc restart</code>). Save only if you will.
        </p>
      )}
    </div>
  );
}
