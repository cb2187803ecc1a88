// The shape every process supervisor in svc has (a slot's engine, a tool server, the memory
// database): its state is private and moves only through its table, a move the table does
// not list throws (staying in a state is not a move), its starts and stops run one at a time
// in its own queue, a start asked for while one is queued or running joins it, and the run
// in progress (a start, or a process's life) can be interrupted by a stop that queues behind
// it. Node's awaits interleave like threads: without the queue, two callers would each check
// the state and then act on what the other already changed.
import { SerialQueue } from '../serial-queue.js';

/** The legal moves from each state. A state listed under itself may be re-entered; none is by default. */
export type TransitionTable<S extends string> = Readonly<Record<S, readonly S[]>>;

export function canMove<S extends string>(table: TransitionTable<S>, from: S, to: S): boolean {
  return table[from].includes(to);
}

export class IllegalTransition extends Error {
  constructor(readonly subject: string, readonly from: string, readonly to: string) {
    super(`${subject}: ${from} -> ${to} is not a legal move`);
  }
}

export interface LifecycleOptions<S extends string> {
  /** Who moves, for the error of an illegal move ("slot chat", "tool server fs"). */
  subject: string;
  table: TransitionTable<S>;
  initial: S;
  /** The error an illegal move throws (a catalogued one); IllegalTransition by default. */
  illegal?: (from: S, to: S) => Error;
}

export class Lifecycle<S extends string> {
  private current: S;
  private readonly queue = new SerialQueue();
  private readonly joinable = new Map<string, Promise<unknown>>();
  private run: AbortController | null = null;

  constructor(private readonly options: LifecycleOptions<S>) {
    this.current = options.initial;
  }

  get state(): S {
    return this.current;
  }

  /** Move to `to`; returns the state left. Throws (and stays) when the table has no such move. */
  move(to: S): S {
    const from = this.current;
    if (!canMove(this.options.table, from, to)) throw this.options.illegal?.(from, to) ?? new IllegalTransition(this.options.subject, from, to);
    this.current = to;
    return from;
  }

  /** Run `task` after every task asked for before it, alone. */
  serially<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  /** As serially(), but while a task of the same `key` waits or runs, a call joins it (its result or its failure). */
  joined<T>(key: string, task: () => Promise<T>): Promise<T> {
    const pending = this.joinable.get(key);
    if (pending) return pending as Promise<T>;
    const queued = this.queue.run(task).finally(() => {
      if (this.joinable.get(key) === queued) this.joinable.delete(key);
    });
    this.joinable.set(key, queued);
    return queued;
  }

  /** Begin a run (a start, a process's life): the signal aborts when interrupt() is called or the next run begins. */
  beginRun(): AbortSignal {
    this.run?.abort();
    this.run = new AbortController();
    return this.run.signal;
  }

  /** The run of `signal` is over without interruption (a start that ended, a process that exited). */
  endRun(signal: AbortSignal): void {
    if (this.run?.signal === signal) this.run = null;
  }

  /** A run has begun and not ended (it may have been interrupted and be winding down). */
  get running(): boolean {
    return this.run !== null;
  }

  /**
   * Abort the run in progress, if any, so a stop queued behind it does not wait it out. The
   * tasks that could be joined are not any more: a start asked for after a stop runs after it.
   */
  interrupt(): void {
    this.run?.abort();
    this.joinable.clear();
  }
}
