import { describe, expect, it } from 'vitest';
import { WorkerPool } from './pool.js';

describe('WorkerPool', () => {
  it('hands out each worker once and queues the rest first come, first served', async () => {
    const pool = new WorkerPool(['a', 'b']);
    const first = await pool.acquire();
    const second = await pool.acquire();
    expect(new Set([first, second])).toEqual(new Set(['a', 'b']));
    const order: string[] = [];
    const third = pool.acquire().then((w) => order.push(`third:${w}`));
    const fourth = pool.acquire().then((w) => order.push(`fourth:${w}`));
    expect(pool.waiting).toBe(2);
    pool.release(first);
    pool.release(second);
    await Promise.all([third, fourth]);
    expect(order).toEqual([`third:${first}`, `fourth:${second}`]);
    expect(pool.busy).toBe(2);
  });

  it('a waiter that aborts leaves the queue without taking a worker', async () => {
    const pool = new WorkerPool([1]);
    const held = await pool.acquire();
    const controller = new AbortController();
    const gone = pool.acquire(controller.signal);
    const next = pool.acquire();
    controller.abort(new Error('client left'));
    await expect(gone).rejects.toThrow('client left');
    expect(pool.waiting).toBe(1);
    pool.release(held);
    expect(await next).toBe(1);
    await expect(pool.acquire(AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });

  it('use() releases the worker when the work throws', async () => {
    const pool = new WorkerPool(['only']);
    await expect(pool.use(undefined, async () => {
      throw new Error('boom');
    })).rejects.toThrow('boom');
    expect(pool.busy).toBe(0);
    expect(await pool.use(undefined, async (w) => w.toUpperCase())).toBe('ONLY');
  });
});
