// /stacks/apply/<slug>: the dry-run plan as a diff per slot; Apply asks to confirm with what
// will change, then follows the apply live from its stack.apply.* events to done, and shows
// whether the slots now match the stack.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { StackApplyPayload } from '../../../../src/protocol/stacks.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { Confirm } from '../../components/confirm.js';
import { ErrorNote } from '../../components/error-note.js';
import { useEvents } from '../../live.js';
import { Link, useTitle } from '../../router.js';
import { foldApplyAnswer, foldApplyEvent, IDLE, type ApplyProgress } from './apply-progress.js';
import { ApplyProgressView } from './apply-progress-view.js';
import { PlanDiff } from './plan-diff.js';
import { planLines } from './plan-format.js';
import { planQuery, stackPath } from './queries.js';

export function ApplyView({ slug }: { slug: string }) {
  useTitle(`Apply stack ${slug}`);
  const access = useAccess();
  const queries = useQueryClient();
  // The dry run is a POST that the gateway keeps to write access, like the apply itself.
  const plan = useQuery({ ...planQuery(slug), enabled: access.can('write') });
  const [confirming, setConfirming] = useState(false);
  const [pull, setPull] = useState(false);
  const [progress, setProgress] = useState<ApplyProgress>(IDLE);
  const [applied, setApplied] = useState<StackApplyPayload | null>(null);
  const [applyError, setApplyError] = useState<unknown>(null);
  useEvents((event) => setProgress((now) => (now.phase === 'idle' ? now : foldApplyEvent(now, slug, event))));

  const start = (confirmed: StackApplyPayload) => {
    setApplied(confirmed);
    setApplyError(null);
    setProgress({ ...IDLE, phase: 'started', expected: [...confirmed.unloads, ...confirmed.changes.map((c) => c.slot)] });
    // The answer comes once every slot has converged; the events show the way there.
    sendJson<StackApplyPayload>('POST', `${stackPath(slug)}/apply${pull ? '?pull=true' : ''}`)
      .then((answer) => setProgress((now) => foldApplyAnswer(now, answer)))
      .catch((failure: unknown) => {
        setApplyError(failure);
        setProgress((now) => ({ ...now, phase: 'failed' }));
      });
  };
  const planAgain = () => {
    setProgress(IDLE);
    setApplied(null);
    setApplyError(null);
    void queries.invalidateQueries({ queryKey: planQuery(slug).queryKey });
  };

  const shown = applied ?? plan.data;
  const pullable = shown?.models.some((m) => m.status === 'pullable') ?? false;
  const refused = (plan.data?.problems?.length ?? 0) > 0;
  return (
    <section className="page stacks-page">
      <p>
        <Link to="/stacks">← Profiles & stacks</Link>
      </p>
      <h1>Apply stack {slug}</h1>
      <p className="muted">
        An apply is a declarative replace: every slot the stack names is created or edited to match it and started; every running slot it does not name is unloaded (its file is kept).
      </p>
      {plan.error !== null && <ErrorNote error={plan.error} />}
      {!access.can('write') && <p className="warn-note">The plan needs write access: {access.why('write')}.</p>}
      {!shown && !plan.error && access.can('write') && <p className="muted">Planning…</p>}
      {progress.phase === 'idle' && plan.data && (
        <div className="toolbar">
          {pullable && (
            <label>
              <input type="checkbox" checked={pull} onChange={(e) => setPull(e.target.checked)} /> pull the models that are not here
            </label>
          )}
          <button type="button" className="primary" onClick={() => setConfirming(true)} disabled={!access.can('write') || refused} title={access.why('write') ?? (refused ? 'the guards would refuse this apply' : undefined)} data-testid="apply">
            Apply…
          </button>
        </div>
      )}
      {progress.phase !== 'idle' && (
        <ApplyProgressView progress={progress} plan={applied} error={applyError} onPlanAgain={planAgain} />
      )}
      <h2>{applied ? 'The plan applied' : 'Dry run'}</h2>
      {shown && <PlanDiff plan={shown} />}
      {confirming && plan.data && (
        <Confirm
          title={`Apply stack ${slug}?`}
          changes={
            <ul data-testid="apply-changes">
              {planLines(plan.data).map((line) => (
                <li key={line}>{line}</li>
              ))}
              {planLines(plan.data).length === 0 && <li>Nothing changes: every slot already matches.</li>}
            </ul>
          }
          action="Apply"
          danger={false}
          onConfirm={() => start(plan.data)}
          onClose={() => setConfirming(false)}
        />
      )}
    </section>
  );
}
