// A slot that fails to start says why where the user is: the engine's last stderr lines (the
// API's error carries them, details.stderr_tail) and the command with the whole log, instead
// of a one-line code and message (`svc slot load`, `restart`, `swap`, `svc run`).
import { ApiResponseError } from '../client.js';
import { CliExit, EXIT, exitFor } from '../output.js';

/** Lines of the engine's stderr shown; `svc slot logs` has the rest. */
export const STDERR_LINES_SHOWN = 10;

/** The failures of an engine that ran (and wrote to its log). */
const ENGINE_FAILURES: ReadonlySet<string> = new Set(['slot.load_failed', 'slot.spawn_failed', 'slot.crash_loop', 'slot.unhealthy', 'slot.rpc_worker_unreachable']);

/** The message of a failed start of slot `name`, with the engine's last stderr lines and where the whole log is; undefined for any other error. */
export function startFailureMessage(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiResponseError) || !ENGINE_FAILURES.has(error.code)) return undefined;
  const tail = typeof error.envelope.error.details.stderr_tail === 'string' ? error.envelope.error.details.stderr_tail.split('\n').filter((l) => l.trim() !== '') : [];
  const shown = tail.slice(-STDERR_LINES_SHOWN);
  const lines = [exitFor(error).message];
  if (shown.length > 0) lines.push(`the engine's last ${shown.length === 1 ? 'line' : `${shown.length} lines`} on stderr:`, ...shown.map((l) => `  ${l}`));
  else lines.push('the engine wrote nothing to stderr');
  lines.push(`its whole log: svc slot logs ${name}`);
  return lines.join('\n');
}

/** `start` (a load, restart or swap of slot `name`), its failure told with the engine's stderr. */
export async function withStartFailure<T>(name: string, start: Promise<T>): Promise<T> {
  try {
    return await start;
  } catch (error) {
    const message = startFailureMessage(error, name);
    throw message === undefined ? error : new CliExit(EXIT.failed, message);
  }
}
