import { describe, expect, it } from 'vitest';
import { FailureLimit } from './failure-limit.js';

describe('FailureLimit', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('refuses a client after `limit` failures until its window ends', () => {
    const time = clock();
    const limit = new FailureLimit({ limit: 3, windowMs: 60_000, maxClients: 10, now: time.now });
    for (let i = 0; i < 3; i++) {
      expect(limit.retryAfterS('a')).toBe(0);
      limit.fail('a');
    }
    expect(limit.retryAfterS('a')).toBe(60);
    expect(limit.retryAfterS('b')).toBe(0);
    time.advance(59_500);
    expect(limit.retryAfterS('a')).toBe(1);
    time.advance(500);
    expect(limit.retryAfterS('a')).toBe(0);
  });

  it('remembers at most maxClients addresses, forgetting the least recent', () => {
    const time = clock();
    const limit = new FailureLimit({ limit: 1, windowMs: 60_000, maxClients: 2, now: time.now });
    limit.fail('a');
    limit.fail('b');
    limit.fail('a');
    limit.fail('c');
    expect(limit.retryAfterS('a')).toBeGreaterThan(0);
    expect(limit.retryAfterS('b')).toBe(0);
    expect(limit.retryAfterS('c')).toBeGreaterThan(0);
  });
});
