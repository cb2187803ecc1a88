import { describe, expect, it } from 'vitest';
import { StreamLimit } from './stream-limit.js';

/** The refusal a stream past the cap gets: 503 system.too_many_streams with these details. */
const refusal = (details: Record<string, unknown>) =>
  expect.objectContaining({ code: 'system.too_many_streams', status: 503, details: expect.objectContaining({ ...details, retry_after_s: expect.any(Number) }) });

describe('StreamLimit', () => {
  it('admits a client up to its share, then refuses it with a retry hint', () => {
    const limit = new StreamLimit({ total: 10, perClient: 2 });
    limit.admit('10.0.0.1');
    limit.admit('::ffff:10.0.0.1');
    expect(() => limit.admit('10.0.0.1')).toThrow(refusal({ scope: 'client', limit: 2 }));
    expect(() => limit.admit('10.0.0.2')).not.toThrow();
  });

  it('refuses everyone once the gateway holds its total, and frees a place once per release', () => {
    const limit = new StreamLimit({ total: 3, perClient: 2 });
    const release = limit.admit('a');
    limit.admit('b');
    limit.admit('c');
    expect(() => limit.admit('d')).toThrow(refusal({ scope: 'gateway', limit: 3 }));
    release();
    release();
    limit.admit('d');
    expect(() => limit.admit('e')).toThrow(refusal({ scope: 'gateway' }));
  });
});
