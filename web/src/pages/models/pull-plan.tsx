// A pull's dry run (POST /api/models/<id>/pull with dry_run): what it would fetch, and the
// fit check with the KV cache counted from the file's header, before anything is fetched.
import type { PullPlanPayload } from '../../../../src/protocol/pulls.js';
import { formatBytes } from './pull-math.js';

export interface PlanAnswer {
  plan: PullPlanPayload;
  refusal: { code: string; message: string } | null;
}

export function PullPlan({ answer }: { answer: PlanAnswer }) {
  const { plan, refusal } = answer;
  return (
    <div className="pull-plan" data-testid="pull-plan">
      <dl className="facts">
        <dt>files</dt>
        <dd>
          {plan.files.length} · {formatBytes(plan.bytes_total)}
          {plan.bytes_on_disk > 0 && ` (${formatBytes(plan.bytes_on_disk)} on disk already)`}
        </dd>
        <dt>model</dt>
        <dd>
          {plan.architecture ?? '?'} · {plan.quant ?? 'no quant'} · context {plan.context_length?.toLocaleString() ?? '?'}
        </dd>
        <dt>fit</dt>
        <dd data-testid="plan-fit" title={`weights ${plan.fit.weights_mb} + KV cache ${plan.fit.kv_cache_mb} + overhead ${plan.fit.overhead_mb} MiB at context ${plan.fit.context}`}>
          <span className={`fit fit-${plan.fit.fits ? 'fits' : 'too-big'}`}>{plan.fit.fits ? 'fits' : 'too big'}</span> {plan.fit.total_mb} MiB of{' '}
          {plan.fit.budget_mb} MiB
        </dd>
        <dt>disk</dt>
        <dd>
          <span className={`fit fit-${plan.disk.fits ? 'fits' : 'too-big'}`}>{plan.disk.fits ? 'room' : 'no room'}</span> {formatBytes(plan.disk.needed_bytes)} needed,{' '}
          {formatBytes(plan.disk.free_bytes)} free
        </dd>
      </dl>
      {refusal && (
        <p className="warn-note" data-testid="plan-refusal">
          <code>{refusal.code}</code> {refusal.message}
        </p>
      )}
    </div>
  );
}
