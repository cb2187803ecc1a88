// An update or rollback job as the page follows it: folded from the `update.*` events of the
// app's event stream (docs/api.md, "Events"), so its states show as they happen without a
// poll; plus what a confirmation says will change. Pure functions.
import type { SvcEvent } from '../../../../src/protocol/events.js';
import { TERMINAL_UPDATE_STATES, UPDATE_JOB_STATES, type UpdateJob, type UpdateJobState } from '../../../../src/protocol/updates.js';

const isState = (text: string): text is UpdateJobState => (UPDATE_JOB_STATES as readonly string[]).includes(text);

export const isFinished = (job: UpdateJob): boolean => TERMINAL_UPDATE_STATES.has(job.state);

/** The job after `event`, or null when the event is not about it (another job, another type). */
export function foldJobEvent(job: UpdateJob, event: SvcEvent): UpdateJob | null {
  let state: UpdateJobState;
  let error = job.error;
  switch (event.type) {
    case 'update.progress':
      if (event.data.job !== job.id || !isState(event.data.state)) return null;
      state = event.data.state;
      break;
    case 'update.applied':
      if (event.data.job !== job.id) return null;
      state = 'applied';
      break;
    case 'update.failed':
      if (event.data.job !== job.id) return null;
      state = 'failed';
      error = { code: event.data.code, message: event.message };
      break;
    case 'update.rolled_back':
      if (event.data.job !== job.id) return null;
      state = 'rolled_back';
      error = { code: 'update.health_failed', message: event.data.reason };
      break;
    default:
      return null;
  }
  // A state seen twice (the worker's file and the gateway both tell it) is one step.
  const history = job.history.at(-1)?.state === state ? job.history : [...job.history, { state, at: event.ts, message: event.message }];
  return { ...job, state, message: event.message, error, history, updated_at: event.ts };
}

/** The states a job of this kind passes on its way, for the progress list. */
export function stepsOf(kind: UpdateJob['kind']): UpdateJobState[] {
  const steps: UpdateJobState[] = kind === 'update' ? ['queued', 'downloading', 'verifying', 'installing', 'migrating'] : ['queued', 'migrating'];
  return [...steps, 'switching', 'restarting', 'health_check'];
}

/** What an apply or a rollback changes, one line each, for its confirmation. */
export function changesOf(kind: UpdateJob['kind'], from: string, to: string): string[] {
  const lines = [`svc ${from} → ${to}`];
  if (kind === 'update') lines.push(`installs ${to} beside the running tree (its dependencies from npm) and runs its config migrations, keeping a backup`);
  else lines.push(`switches back to the tree svc.previous records (${to}); a migration the update made is undone from its backup`);
  lines.push('restarts the gateway: requests in flight finish, slots stop and start again, the dashboard reconnects by itself');
  lines.push(`if ${to} does not answer healthy, svc switches back to ${from} by itself`);
  return lines;
}
