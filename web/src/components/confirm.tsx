// Every destructive action shows what it will change before it changes it: a modal
// <dialog> (focus trapped and Escape handled by the browser) listing the changes, with the
// action named on its button. `onConfirm` may be async; its failure stays in the dialog.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ErrorNote } from './error-note.js';

export interface ConfirmProps {
  /** The question, e.g. "Delete slot chat?". */
  title: string;
  /** What will change, one line each (or any content). */
  changes: ReactNode;
  /** The button's words, e.g. "Delete". */
  action: string;
  danger?: boolean;
  onConfirm: () => unknown;
  onClose: () => void;
}

export function Confirm({ title, changes, action, danger = true, onConfirm, onClose }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (failure) {
      setError(failure);
      setBusy(false);
    }
  };
  return (
    <dialog ref={dialog} className="confirm" onClose={onClose} aria-labelledby="confirm-title" data-testid="confirm">
      <h2 id="confirm-title">{title}</h2>
      <div className="confirm-changes">{changes}</div>
      {error !== null && <ErrorNote error={error} />}
      <div className="actions">
        <button type="button" onClick={onClose} disabled={busy}>
          Cancel
        </button>
        <button type="button" className={danger ? 'danger' : 'primary'} onClick={confirm} disabled={busy} data-testid="confirm-action">
          {busy ? `${action}…` : action}
        </button>
      </div>
    </dialog>
  );
}
