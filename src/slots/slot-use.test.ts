import { afterEach, describe, expect, it, vi } from 'vitest';
import { SlotUse } from './slot-use.js';

afterEach(() => void vi.useRealTimers());

describe('SlotUse', () => {
  it('counts requests in flight; a release counts once however often it is called', () => {
    const use = new SlotUse();
    const first = use.acquire();
    const second = use.acquire();
    expect(use.inFlight).toBe(2);
    first();
    first();
    expect(use.inFlight).toBe(1);
    second();
    expect(use.inFlight).toBe(0);
  });

  it('the last use is a request\'s start or end, or a mark', () => {
    vi.useFakeTimers({ now: 1_000 });
    const use = new SlotUse();
    expect(use.lastUsedAt).toBe(0);
    const release = use.acquire();
    expect(use.lastUsedAt).toBe(1_000);
    vi.setSystemTime(2_000);
    release();
    expect(use.lastUsedAt).toBe(2_000);
    vi.setSystemTime(3_000);
    use.mark();
    expect(use.lastUsedAt).toBe(3_000);
  });
});
