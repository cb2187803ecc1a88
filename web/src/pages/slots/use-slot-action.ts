// One slot write at a time from the detail view: which one runs (its button says so), and
// the API error of the last one, shown with its code and message.
import { useState } from 'react';

export interface SlotAction {
  busy: string | null;
  error: unknown;
  /** Run `operation` as `label` unless another one runs; failures land in `error`. */
  run(label: string, operation: () => Promise<unknown>): Promise<void>;
  /** For a confirm dialog, which shows the failure itself: rethrows. */
  runOrThrow(label: string, operation: () => Promise<unknown>): Promise<void>;
}

export function useSlotAction(): SlotAction {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const runOrThrow = async (label: string, operation: () => Promise<unknown>) => {
    setBusy(label);
    setError(null);
    try {
      await operation();
    } finally {
      setBusy(null);
    }
  };
  const run = async (label: string, operation: () => Promise<unknown>) => {
    if (busy !== null) return;
    await runOrThrow(label, operation).catch(setError);
  };
  return { busy, error, run, runOrThrow };
}
