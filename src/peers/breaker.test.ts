import { describe, expect, it } from 'vitest';
import { Breaker, type BreakerChange } from './breaker.js';

const options = { failures: 3, backoffMs: 1000, maxBackoffMs: 4000 };

function breaker() {
  const changes: BreakerChange[] = [];
  return { b: new Breaker(options, (c) => changes.push(c)), changes };
}

describe('the circuit breaker', () => {
  it('opens after N consecutive failures, not before; a success in between starts the count again', () => {
    const { b, changes } = breaker();
    b.failure(0, 'x');
    b.failure(0, 'x');
    b.success();
    b.failure(0, 'x');
    b.failure(0, 'x');
    expect(b.state).toBe('closed');
    b.failure(10, 'refused');
    expect(b.state).toBe('open');
    expect(changes).toEqual([{ from: 'closed', to: 'open', reason: '3 consecutive failures, the last: refused' }]);
    expect(b.view()).toEqual({ state: 'open', consecutive_failures: 3, retry_at: new Date(1010).toISOString() });
  });

  it('lets one probe through once the backoff elapsed (half-open); the probe closes it', () => {
    const { b, changes } = breaker();
    for (let i = 0; i < 3; i++) b.failure(0, 'x');
    expect(b.available(999)).toBe(false);
    expect(b.acquire(999)).toBe(false);
    expect(b.available(1000)).toBe(true);
    expect(b.acquire(1000)).toBe(true);
    expect(b.state).toBe('half-open');
    expect(b.acquire(1000)).toBe(false); // one probe at a time
    b.success();
    expect(b.state).toBe('closed');
    expect(changes.map((c) => c.to)).toEqual(['open', 'half-open', 'closed']);
  });

  it('a failed probe opens it again with the backoff doubled, up to the cap; a success resets the backoff', () => {
    const { b } = breaker();
    for (let i = 0; i < 3; i++) b.failure(0, 'x');
    let now = 1000;
    for (const wait of [2000, 4000, 4000]) {
      expect(b.acquire(now)).toBe(true);
      b.failure(now, 'still down');
      expect(b.state).toBe('open');
      expect(b.available(now + wait - 1)).toBe(false);
      expect(b.available(now + wait)).toBe(true);
      now += wait;
    }
    b.acquire(now);
    b.success();
    for (let i = 0; i < 3; i++) b.failure(now, 'x');
    expect(b.available(now + 1000)).toBe(true);
  });
});
