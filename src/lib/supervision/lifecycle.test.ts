// The shared supervisor shape without processes: the table, the queue, joins and runs.
import { describe, expect, it } from 'vitest';
import { canMove, IllegalTransition, Lifecycle, type TransitionTable } from './lifecycle.js';

type State = 'stopped' | 'starting' | 'ready' | 'error';
const TABLE: TransitionTable<State> = { stopped: ['starting'], starting: ['ready', 'error', 'stopped'], ready: ['stopped', 'error'], error: ['starting', 'stopped'] };
const lifecycle = () => new Lifecycle<State>({ subject: 'thing t', table: TABLE, initial: 'stopped' });

/** A promise and the function that settles it: the test decides when a task ends. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('Lifecycle transitions', () => {
  it('moves along the table and returns the state left', () => {
    const l = lifecycle();
    expect(l.move('starting')).toBe('stopped');
    expect(l.move('ready')).toBe('starting');
    expect(l.state).toBe('ready');
  });

  it('throws on a move the table does not list, and stays where it was', () => {
    const l = lifecycle();
    expect(() => l.move('ready')).toThrow(IllegalTransition);
    expect(() => l.move('ready')).toThrow('thing t: stopped -> ready is not a legal move');
    expect(l.state).toBe('stopped');
  });

  it('treats staying in a state as a move the table must list', () => {
    const l = lifecycle();
    expect(canMove(TABLE, 'stopped', 'stopped')).toBe(false);
    expect(() => l.move('stopped')).toThrow(IllegalTransition);
    const reentrant = new Lifecycle<State>({ subject: 'r', table: { ...TABLE, error: ['error', 'starting', 'stopped'] }, initial: 'error' });
    expect(reentrant.move('error')).toBe('error');
  });

  it('throws the error the owner names', () => {
    const l = new Lifecycle<State>({ subject: 's', table: TABLE, initial: 'stopped', illegal: (from, to) => new RangeError(`${from}=>${to}`) });
    expect(() => l.move('error')).toThrow(new RangeError('stopped=>error'));
  });
});

describe('Lifecycle queue', () => {
  it('runs tasks one at a time in arrival order, a failure not stopping the next', async () => {
    const l = lifecycle();
    const order: string[] = [];
    const first = gate();
    const a = l.serially(async () => {
      order.push('a begins');
      await first.promise;
      order.push('a ends');
      throw new Error('a failed');
    });
    const b = l.serially(async () => {
      order.push('b');
      return 2;
    });
    await Promise.resolve();
    expect(order).toEqual(['a begins']);
    first.open();
    await expect(a).rejects.toThrow('a failed');
    await expect(b).resolves.toBe(2);
    expect(order).toEqual(['a begins', 'a ends', 'b']);
  });

  it('joins a call to the task of the same key that waits or runs, and runs a new one after it ended', async () => {
    const l = lifecycle();
    let runs = 0;
    const held = gate();
    const task = async () => {
      runs++;
      await held.promise;
      return runs;
    };
    const first = l.joined('start', task);
    const second = l.joined('start', task);
    expect(second).toBe(first);
    held.open();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    await expect(l.joined('start', task)).resolves.toBe(2);
  });

  it('lets a failed joined task fail every caller that joined it', async () => {
    const l = lifecycle();
    const task = () => Promise.reject(new Error('no'));
    const calls = [l.joined('start', task), l.joined('start', task)];
    for (const call of calls) await expect(call).rejects.toThrow('no');
  });
});

describe('Lifecycle runs', () => {
  it('aborts the run in progress on interrupt, and no other', () => {
    const l = lifecycle();
    const first = l.beginRun();
    const second = l.beginRun();
    expect(first.aborted).toBe(true); // a new run supersedes the old one
    expect(l.running).toBe(true);
    l.endRun(first); // old news: the current run goes on
    expect(l.running).toBe(true);
    l.interrupt();
    expect(second.aborted).toBe(true);
    expect(l.running).toBe(true); // winding down until its owner ends it
    l.endRun(second);
    expect(l.running).toBe(false);
  });

  it('queues a fresh task after an interrupt instead of joining the interrupted one', async () => {
    const l = lifecycle();
    const held = gate();
    const first = l.joined('start', () => held.promise.then(() => 'first'));
    l.interrupt();
    const second = l.joined('start', () => Promise.resolve('second'));
    expect(second).not.toBe(first);
    held.open();
    expect(await Promise.all([first, second])).toEqual(['first', 'second']);
  });

  it('does not abort a run that ended', () => {
    const l = lifecycle();
    const run = l.beginRun();
    l.endRun(run);
    l.interrupt();
    expect(run.aborted).toBe(false);
  });
});
