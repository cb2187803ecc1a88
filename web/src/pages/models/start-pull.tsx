// Start a pull: a ref (filled in from a search result's quant, or typed: org/repo:QUANT,
// an https URL, a catalogue name) and the registry id it creates (the CLI's rule unless
// edited), checked as the user types against the server's own rules.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { MODEL_ID_PATTERN, MODEL_ID_RULE } from '../../../../src/protocol/model-ids.js';
import { parsePullRef } from '../../../../src/protocol/pull-ref.js';
import type { PullJobPayload } from '../../../../src/protocol/pulls.js';
import { sendJson } from '../../api-error.js';
import { useAccess } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { Field } from '../../components/field.js';
import { problemsOfError } from '../../field-problems.js';
import { pullsQuery } from './queries.js';
import { suggestedModelId, withJob } from './pull-math.js';
import { PullPlan, type PlanAnswer } from './pull-plan.js';

export function StartPull({ initialRef, onDone }: { initialRef: string | null; onDone: () => void }) {
  const queries = useQueryClient();
  const access = useAccess();
  const [ref, setRef] = useState(initialRef ?? '');
  const [ownId, setOwnId] = useState<string | null>(null);
  const [force, setForce] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [plan, setPlan] = useState<PlanAnswer | null>(null);
  const refInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (initialRef) refInput.current?.focus();
  }, [initialRef]);
  const id = ownId ?? suggestedModelId(ref);
  const parsed = ref.trim() === '' ? null : parsePullRef(ref);
  const refProblem = parsed && 'error' in parsed ? parsed.error : problemsOfError(error).ref;
  const idProblem = id !== '' && !MODEL_ID_PATTERN.test(id) ? `expected ${MODEL_ID_RULE}` : undefined;
  const ready = parsed !== null && !('error' in parsed) && id !== '' && !idProblem;
  const path = `/api/models/${encodeURIComponent(id)}/pull`;
  const check = async () => {
    setBusy(true);
    setError(null);
    setPlan(null);
    try {
      setPlan(await sendJson<PlanAnswer>('POST', path, { ref: ref.trim(), force, dry_run: true }));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const job = await sendJson<PullJobPayload>('POST', path, { ref: ref.trim(), force });
      queries.setQueryData(pullsQuery.queryKey, (old) => ({ pulls: withJob(old?.pulls ?? [], job) }));
      onDone();
      setPlan(null);
      setRef('');
      setOwnId(null);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="start-pull" onSubmit={submit} data-testid="start-pull" aria-label="start a pull">
      <Field label="Ref" path="ref" problem={refProblem} hint="org/repo:QUANT, org/repo/file.gguf, an https URL or a catalogue name">
        <input
          ref={refInput}
          value={ref}
          onChange={(e) => {
            setRef(e.target.value);
            setPlan(null);
          }}
          data-testid="pull-ref"
        />
      </Field>
      <Field label="Model id" path="model_id" problem={idProblem} hint="the registry id the pull creates or refreshes">
        <input value={id} onChange={(e) => setOwnId(e.target.value)} data-testid="pull-id" />
      </Field>
      <label className="check">
        <input type="checkbox" checked={force} onChange={(e) => setForce(e.target.checked)} /> Pull even if the fit check says it does not fit
      </label>
      {plan && <PullPlan answer={plan} />}
      {error !== null && <ErrorNote error={error} />}
      <div className="actions">
        <button type="button" onClick={check} disabled={!ready || busy || !access.can('write')} title={access.why('write')} data-testid="pull-check">
          Check fit
        </button>
        <button type="submit" className="primary" disabled={!ready || busy || !access.can('write')} title={access.why('write')} data-testid="pull-start">
          {busy ? 'Starting…' : 'Pull'}
        </button>
      </div>
    </form>
  );
}
