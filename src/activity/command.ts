// The one shape of a command of the slot, model and other services: run it, then write its
// activity row, then publish its event; a failure (an SvcError) is a row with its code before
// it is rethrown. The services (slots/commands.ts, models/commands.ts) build on this, so each
// operation records and publishes in one place, the same way.
import { SvcError } from '../protocol/errors.js';
import type { ActivityInput } from './store.js';

/** Who asks. `via`: what drove the command when not the actor's own request (install.apply, stack.apply); it goes in the row's details. */
export interface CommandOrigin {
  actor: string;
  via?: string;
}

/** What a command did: its answer, its row's details (none: it changed nothing, no row), the row's target when the request did not name it, its event. */
export interface CommandDone<T, E> {
  result: T;
  details?: Record<string, unknown>;
  target?: string;
  event?: E;
}

export interface CommandSinks<E> {
  record: (entry: ActivityInput) => void;
  publish: (event: E) => void;
}

export interface CommandRow {
  action: string;
  target: string;
  origin: CommandOrigin;
  /** What was asked, in a failure row's details beside the code. */
  asked?: Record<string, unknown>;
  /** A failure that already has its row (a refusal its asker recorded): not recorded again. */
  recordedElsewhere?: (error: unknown) => boolean;
}

export async function runCommand<T, E>(sinks: CommandSinks<E>, row: CommandRow, operation: () => Promise<CommandDone<T, E>>): Promise<T> {
  const { action, target, origin } = row;
  const via = origin.via === undefined ? {} : { via: origin.via };
  let done: CommandDone<T, E>;
  try {
    done = await operation();
  } catch (error) {
    if (error instanceof SvcError && !row.recordedElsewhere?.(error)) {
      sinks.record({ action, target, actor: origin.actor, outcome: 'error', message: error.message, details: { ...row.asked, ...via, code: error.code, ...error.details } });
    }
    throw error;
  }
  if (done.details) sinks.record({ action, target: done.target ?? target, actor: origin.actor, details: { ...done.details, ...via } });
  if (done.event !== undefined) sinks.publish(done.event);
  return done.result;
}
