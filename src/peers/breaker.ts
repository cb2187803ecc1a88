// A circuit breaker per replica, as an explicit state machine (docs/scaling.md, Breakers):
//
//   closed --N consecutive failures--> open --backoff elapsed, one probe--> half-open
//   half-open --probe succeeds--> closed          half-open --probe fails--> open (backoff doubled)
//
// A probe is a request or a health check taken while the backoff has elapsed. Pure: the
// clock is passed in, so the unit tests walk every edge without waiting.
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  failures: number;
  /** First wait before a half-open probe, ms; doubled after each failed probe up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

export interface BreakerChange {
  from: BreakerState;
  to: BreakerState;
  reason: string;
}

export interface BreakerView {
  state: BreakerState;
  consecutive_failures: number;
  /** When an open breaker lets its next probe through (ISO time), or null. */
  retry_at: string | null;
}

export class Breaker {
  private current: BreakerState = 'closed';
  private failuresInRow = 0;
  private backoffMs: number;
  private retryAt = 0;

  constructor(
    private options: BreakerOptions,
    private readonly onChange: (change: BreakerChange) => void = () => undefined,
  ) {
    this.backoffMs = options.backoffMs;
  }

  get state(): BreakerState {
    return this.current;
  }

  /** New thresholds (a config reload); the state is kept. */
  configure(options: BreakerOptions): void {
    this.options = options;
  }

  /** Whether a request may be sent now, without taking the probe (replica choice reads this). */
  available(now: number): boolean {
    return this.current === 'closed' || (this.current === 'open' && now >= this.retryAt);
  }

  /** Take the way through: true when closed, or when open and the backoff has elapsed (the probe: half-open from here). */
  acquire(now: number): boolean {
    if (this.current === 'closed') return true;
    if (this.current === 'open' && now >= this.retryAt) {
      this.move('half-open', 'backoff elapsed: one probe goes through');
      return true;
    }
    return false;
  }

  success(): void {
    this.failuresInRow = 0;
    if (this.current === 'closed') return;
    this.backoffMs = this.options.backoffMs;
    this.move('closed', 'a probe succeeded');
  }

  failure(now: number, reason: string): void {
    this.failuresInRow++;
    if (this.current === 'half-open') {
      this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs);
      this.open(now, `the probe failed: ${reason}`);
    } else if (this.current === 'closed' && this.failuresInRow >= this.options.failures) {
      this.open(now, `${this.failuresInRow} consecutive failures, the last: ${reason}`);
    } else if (this.current === 'open') {
      this.retryAt = Math.max(this.retryAt, now + this.backoffMs);
    }
  }

  view(): BreakerView {
    return {
      state: this.current,
      consecutive_failures: this.failuresInRow,
      retry_at: this.current === 'open' ? new Date(this.retryAt).toISOString() : null,
    };
  }

  private open(now: number, reason: string): void {
    this.retryAt = now + this.backoffMs;
    this.move('open', reason);
  }

  private move(to: BreakerState, reason: string): void {
    const from = this.current;
    this.current = to;
    if (from !== to) this.onChange({ from, to, reason });
  }
}
