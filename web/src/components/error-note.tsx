// Every API failure is shown with its code and message, as the gateway sent them.
import { ApiError } from '../api-error.js';

export function ErrorNote({ error }: { error: unknown }) {
  const shown = error instanceof ApiError ? error : new ApiError('dashboard.error', error instanceof Error ? error.message : String(error));
  return (
    <p className="error-note" role="alert">
      <code>{shown.code}</code> {shown.message}
    </p>
  );
}
