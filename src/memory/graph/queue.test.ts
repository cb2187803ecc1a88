import { describe, expect, it } from 'vitest';
import type { ExtractionJob } from './graph-store.js';
import { ExtractionQueue, MAX_ATTEMPTS } from './queue.js';

const job = (id: string): ExtractionJob => ({ bank: 'shared', id, text: id });

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

describe('the extraction queue', () => {
  it('runs one job at a time, in order, and counts what was built', async () => {
    const order: string[] = [];
    let running = 0;
    const done = deferred();
    const queue = new ExtractionQueue({
      attempt: async (j) => {
        running += 1;
        expect(running).toBe(1);
        order.push(j.id);
        await new Promise((r) => setImmediate(r));
        running -= 1;
        if (j.id === 'c') done.resolve();
        return true;
      },
      failed: async () => undefined,
    });
    for (const id of ['a', 'b', 'c']) expect(queue.enqueue(job(id))).toBe(true);
    expect(queue.enqueue(job('a'))).toBe(false); // already queued
    expect(queue.counters.in_flight).toBe(3);
    await done.promise;
    await queue.close();
    expect(order).toEqual(['a', 'b', 'c']);
    expect(queue.counters).toMatchObject({ builds_ok: 3, errors: 0, last_error: null });
    expect(queue.counters.last_built_at).not.toBeNull();
  });

  it('tries a failing job MAX_ATTEMPTS times, then counts one error with its message', async () => {
    let attempts = 0;
    const failed = deferred();
    let failedWith: { attempts: number; message: string } | undefined;
    const queue = new ExtractionQueue({
      attempt: async () => {
        attempts += 1;
        throw new Error(`bad answer ${attempts}`);
      },
      failed: async (_, n, error) => {
        failedWith = { attempts: n, message: error.message };
        failed.resolve();
      },
    });
    queue.enqueue(job('x'));
    await failed.promise;
    await queue.close();
    expect(attempts).toBe(MAX_ATTEMPTS);
    expect(failedWith).toEqual({ attempts: MAX_ATTEMPTS, message: `bad answer ${MAX_ATTEMPTS}` });
    expect(queue.counters).toMatchObject({ builds_ok: 0, errors: 1, last_error: `bad answer ${MAX_ATTEMPTS}` });
  }, 20_000);

  it('refuses past its capacity; a gone item is neither built nor an error; close aborts the job in hand', async () => {
    const started = deferred();
    let aborted = false;
    const queue = new ExtractionQueue({
      attempt: async (j, _, signal) => {
        if (j.id === 'gone') return false;
        started.resolve();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
        aborted = true;
        throw new Error('aborted');
      },
      failed: async () => undefined,
    }, 2);
    expect(queue.enqueue(job('gone'))).toBe(true);
    expect(queue.enqueue(job('slow'))).toBe(true);
    expect(queue.enqueue(job('third'))).toBe(false);
    await started.promise;
    await queue.close();
    expect(aborted).toBe(true);
    expect(queue.counters).toMatchObject({ builds_ok: 0, errors: 0, in_flight: 0 });
    expect(queue.enqueue(job('after'))).toBe(false);
  });
});
