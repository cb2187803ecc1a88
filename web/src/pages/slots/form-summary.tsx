// What a refused submit found, where the user is: a summary at the top of the form (the
// error's code and message, each field's problem linked to its field, what names no field),
// and, after each refused submit, the first field with a problem scrolled into view and
// focused (the summary itself when no shown field has one). The user pressed a button at
// the foot of a long form: without this the answer appeared above, out of sight.
import { useEffect, useState, type MouseEvent, type RefObject } from 'react';
import { ApiError } from '../../api-error.js';
import type { FormFieldKey } from './form-problems.js';

export interface FormSummaryProps {
  error: unknown;
  listed: ReadonlyArray<[FormFieldKey, string]>;
  unplaced: readonly string[];
  labelOf(field: FormFieldKey): string;
  /** The fields the form shows now (a problem of another is listed without a link). */
  shown: ReadonlySet<FormFieldKey>;
  form: RefObject<HTMLFormElement | null>;
}

const fieldElement = (form: HTMLFormElement | null, field: FormFieldKey) => form?.querySelector<HTMLElement>(`[data-field="${CSS.escape(field)}"]`) ?? null;
const controlOf = (field: Element) => field.querySelector<HTMLElement>('input, select, textarea');

function bring(target: HTMLElement, focus: HTMLElement | null) {
  (focus ?? target).focus({ preventScroll: true });
  target.scrollIntoView({ block: 'center' });
}

export function FormSummary({ error, listed, unplaced, labelOf, shown: fields, form }: FormSummaryProps) {
  if (error === null && listed.length === 0 && unplaced.length === 0) return null;
  const shown = error === null ? null : error instanceof ApiError ? error : new ApiError('dashboard.error', error instanceof Error ? error.message : String(error));
  const jump = (field: FormFieldKey) => (event: MouseEvent) => {
    const target = fieldElement(form.current, field);
    if (!target) return;
    event.preventDefault();
    bring(target, controlOf(target));
  };
  return (
    <div className="error-note form-summary" role="alert" tabIndex={-1} data-testid="form-summary">
      {shown && (
        <p>
          <code>{shown.code}</code> {shown.message}
        </p>
      )}
      {listed.length > 0 && (
        <ul>
          {listed.map(([field, message]) => (
            <li key={field}>
              {fields.has(field) ? (
                <a href={`#${field}`} onClick={jump(field)}>
                  {labelOf(field)}
                </a>
              ) : (
                <strong>{labelOf(field)}</strong>
              )}
              : {message}
            </li>
          ))}
        </ul>
      )}
      {unplaced.length > 0 && (
        <ul data-testid="form-problems">
          {unplaced.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** `refused()` after a refused submit: once rendered, the first field with a problem (else the summary) is brought into view and focused. */
export function useBringProblem(form: RefObject<HTMLFormElement | null>): () => void {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (tick === 0 || !form.current) return;
    const bad = form.current.querySelector<HTMLElement>('.field-bad');
    const summary = form.current.querySelector<HTMLElement>('[data-testid="form-summary"]');
    if (bad) bring(bad, controlOf(bad));
    else if (summary) bring(summary, null);
  }, [tick, form]);
  return () => setTick((n) => n + 1);
}
