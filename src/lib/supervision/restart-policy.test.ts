import { describe, expect, it } from 'vitest';
import { decideRestart, type RestartPolicy } from './restart-policy.js';

const policy: RestartPolicy = { backoffBaseMs: 500, backoffMaxMs: 4_000, crashLoopCount: 5, crashLoopWindowMs: 60_000 };

describe('decideRestart', () => {
  it('doubles the delay per recent crash up to the maximum', () => {
    const now = 100_000;
    const delays = [1, 2, 3, 4].map((n) => decideRestart(Array.from({ length: n }, () => now - 1000), now, policy));
    expect(delays).toEqual([
      { restart: true, delayMs: 500 },
      { restart: true, delayMs: 1000 },
      { restart: true, delayMs: 2000 },
      { restart: true, delayMs: 4000 },
    ]);
    expect(decideRestart([now - 10, now - 10, now - 10, now - 10], now, { ...policy, backoffMaxMs: 1500 })).toEqual({ restart: true, delayMs: 1500 });
  });

  it('gives up at the crash-loop cap inside the window', () => {
    const now = 100_000;
    expect(decideRestart([now - 5, now - 4, now - 3, now - 2, now - 1], now, policy)).toEqual({ restart: false, reason: 'crash_loop' });
  });

  it('forgets crashes older than the window', () => {
    const now = 1_000_000;
    const old = [1, 2, 3, 4].map((i) => now - 120_000 - i);
    expect(decideRestart([...old, now], now, policy)).toEqual({ restart: true, delayMs: 500 });
  });
});
