import { describe, expect, it } from 'vitest';
import { waitFor } from './wait.js';

describe('waitFor', () => {
  it('returns the first value that is wanted, reading again until then', async () => {
    let reads = 0;
    expect(await waitFor(() => ++reads, { what: 'the third read', until: (n) => n === 3, interval: 1 })).toBe(3);
    expect(await waitFor(async () => (reads++ < 5 ? undefined : 'there'), { what: 'a value', interval: 1 })).toBe('there');
  });

  it('counts a read that throws as not yet', async () => {
    let reads = 0;
    const flaky = () => {
      if (++reads < 3) throw new Error('connection refused');
      return reads;
    };
    expect(await waitFor(flaky, { what: 'the server', interval: 1 })).toBe(3);
  });

  it('fails naming what it waited for and the last thing it read', async () => {
    await expect(waitFor(() => ({ state: 'loading' }), { what: 'the slot to be ready', until: (v) => v.state === 'ready', timeout: 20, interval: 1 }))
      .rejects.toThrow('waited 20 ms for the slot to be ready; the last read gave {"state":"loading"}');
    await expect(waitFor(() => { throw new Error('ECONNREFUSED'); }, { what: 'the port', timeout: 20, interval: 1 }))
      .rejects.toThrow('waited 20 ms for the port; the last read gave an error: ECONNREFUSED');
  });
});
