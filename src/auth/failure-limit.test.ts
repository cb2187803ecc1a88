import { describe, expect, it } from 'vitest';
import { FailureLimit } from './failure-limit.js';

describe('FailureLimit', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('refuses a client after `limit` failures until its window ends', () => {
    const time = clock();
    const limit = new FailureLimit({ limit: 3, networkLimit: 6, windowMs: 60_000, maxClients: 10, now: time.now });
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
    const limit = new FailureLimit({ limit: 1, networkLimit: 1, windowMs: 60_000, maxClients: 2, now: time.now });
    limit.fail('a');
    limit.fail('b');
    limit.fail('a');
    limit.fail('c');
    expect(limit.retryAfterS('a')).toBeGreaterThan(0);
    expect(limit.retryAfterS('b')).toBe(0);
    expect(limit.retryAfterS('c')).toBeGreaterThan(0);
  });

  it('counts every address of one IPv6 /64 together, against its own budget', () => {
    const time = clock();
    const limit = new FailureLimit({ limit: 3, networkLimit: 5, windowMs: 60_000, maxClients: 100, now: time.now });
    const rotating = ['fd77:0:1::2', 'fd77:0:1::3', 'fd77:0:1::4'];
    for (let i = 0; i < 5; i++) {
      expect(limit.retryAfterS(rotating[i % 3]!)).toBe(0);
      limit.fail(rotating[i % 3]!);
    }
    // No single address reached 3 failures, yet every address of the /64 is refused now.
    expect(limit.retryAfterS('fd77:0:1::99')).toBe(60);
    expect(limit.retryAfterS('fd77:0:2::2')).toBe(0);
    time.advance(60_000);
    expect(limit.retryAfterS('fd77:0:1::2')).toBe(0);
  });

  it('keys one address once whatever its spelling, and an IPv4-mapped address as IPv4', () => {
    const time = clock();
    const limit = new FailureLimit({ limit: 2, networkLimit: 10, windowMs: 60_000, maxClients: 100, now: time.now });
    limit.fail('fd77:0:1::2');
    limit.fail('FD77:0:1:0:0:0:0:0002');
    expect(limit.retryAfterS('fd77:0:1:0::2')).toBeGreaterThan(0);
    limit.fail('::ffff:10.0.0.7');
    limit.fail('10.0.0.7');
    expect(limit.retryAfterS('::ffff:10.0.0.7')).toBeGreaterThan(0);
    expect(limit.retryAfterS('10.0.0.8')).toBe(0);
  });
});
