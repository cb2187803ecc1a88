// A fixed set of workers (context sequences, embedding or ranking contexts) handed out one
// request at a time: up to --parallel requests run at once, the rest wait first come,
// first served. A waiter whose client leaves gives up its place without taking a worker.

interface Waiter<T> {
  resolve(item: T): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class WorkerPool<T> {
  private readonly idle: T[];
  private readonly waiters: Waiter<T>[] = [];

  constructor(private readonly items: readonly T[]) {
    if (items.length === 0) throw new Error('a worker pool needs at least one worker');
    this.idle = [...items];
  }

  get size(): number {
    return this.items.length;
  }

  get busy(): number {
    return this.items.length - this.idle.length;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  /** A free worker, now or when one is released; rejects with the signal's reason on abort. */
  acquire(signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const free = this.idle.pop();
    if (free !== undefined) return Promise.resolve(free);
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        resolve, reject, signal,
        onAbort: () => {
          const at = this.waiters.indexOf(waiter);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener('abort', waiter.onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(item: T): void {
    const next = this.waiters.shift();
    if (!next) {
      this.idle.push(item);
      return;
    }
    next.signal?.removeEventListener('abort', next.onAbort);
    next.resolve(item);
  }

  /** Run `work` with a worker, releasing it however the work ends. */
  async use<R>(signal: AbortSignal | undefined, work: (item: T) => Promise<R>): Promise<R> {
    const item = await this.acquire(signal);
    try {
      return await work(item);
    } finally {
      this.release(item);
    }
  }
}
