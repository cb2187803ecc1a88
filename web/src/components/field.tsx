// One labelled form field with its problem beside it (from the browser's zod check as the
// user types, or from the server's details.problems after a submit), tied to the input with
// aria-describedby and aria-invalid so a screen reader hears it too.
import { useId, type ReactElement, cloneElement } from 'react';

export interface FieldProps {
  label: string;
  /** The problem to show, or undefined. */
  problem?: string | undefined;
  /** A line of help under the field (a description, a default). */
  hint?: string | undefined;
  /** The control: an <input>, <select> or <textarea>; it receives id and aria attributes. */
  children: ReactElement<Record<string, unknown>>;
  /** The dotted path the field edits, for tests (data-field). */
  path?: string;
}

export function Field({ label, problem, hint, children, path }: FieldProps) {
  const id = useId();
  const describedBy = [hint && `${id}-hint`, problem && `${id}-problem`].filter(Boolean).join(' ') || undefined;
  const control = cloneElement(children, { id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy });
  return (
    <div className={`field${problem ? ' field-bad' : ''}`} data-field={path}>
      <label htmlFor={id}>{label}</label>
      {control}
      {hint && (
        <small id={`${id}-hint`} className="muted">
          {hint}
        </small>
      )}
      {problem && (
        <small id={`${id}-problem`} className="field-problem" role="alert" data-testid={path ? `problem-${path}` : undefined}>
          {problem}
        </small>
      )}
    </div>
  );
}
