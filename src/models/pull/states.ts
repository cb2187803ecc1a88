// A pull job's moves (pure): queued → resolving → downloading → verifying → done, failed or
// cancelled from any running step, cancelled from the queue. The manager moves a job only
// through moved(), which throws on a move the table does not list; a finished job moves no
// more (a pull again is a new job). Jobs leave the manager as snapshots (snapshot()): the
// manager's own object keeps changing as bytes arrive (progress.ts), a caller's copy does not.
import { canMove, IllegalTransition, type TransitionTable } from '../../lib/supervision/lifecycle.js';
import type { PullJobPayload, PullState } from '../../protocol/pulls.js';

export const PULL_MOVES: TransitionTable<PullState> = {
  queued: ['resolving', 'cancelled'],
  resolving: ['downloading', 'failed', 'cancelled'],
  downloading: ['verifying', 'failed', 'cancelled'],
  verifying: ['done', 'failed', 'cancelled'],
  done: [],
  failed: [],
  cancelled: [],
};

/** Move `job` to `state`, or throw (and leave it) when PULL_MOVES has no such move. */
export function moveJob(job: PullJobPayload, state: PullState): void {
  if (!canMove(PULL_MOVES, job.state, state)) throw new IllegalTransition(`pull ${job.id} of ${job.model_id}`, job.state, state);
  job.state = state;
}

/** A copy of `job` that nothing changes after it was taken. */
export function snapshot(job: PullJobPayload): PullJobPayload {
  return { ...job, files: job.files.map((file) => ({ ...file })), error: job.error && { ...job.error } };
}
