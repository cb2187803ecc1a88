import { describe, expect, it } from 'vitest';
import { FIRST_HEALTH_POLL_MS, healthPollDelay } from './slot-runtime.js';

describe('healthPollDelay', () => {
  it('starts short and doubles up to the interval, then stays there', () => {
    const delays = Array.from({ length: 8 }, (_, poll) => healthPollDelay(poll, 250));
    expect(delays).toEqual([FIRST_HEALTH_POLL_MS, 20, 40, 80, 160, 250, 250, 250]);
  });

  it('never exceeds a short interval and does not overflow on long loads', () => {
    expect(healthPollDelay(0, 5)).toBe(5);
    expect(healthPollDelay(100_000, 250)).toBe(250);
  });
});
