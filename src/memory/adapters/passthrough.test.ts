// The Hindsight passthrough's allowlist: what may follow /api/memory/banks/<id>/, with which
// methods, and what never leaves the gateway.
import { describe, expect, it } from 'vitest';
import { checkPassthroughPath } from './passthrough.js';

describe('the hindsight passthrough allowlist', () => {
  it('passes the listed paths with their methods; recall becomes the daemon\'s memories/recall', () => {
    expect(checkPassthroughPath('GET', 'stats')).toBe('stats');
    expect(checkPassthroughPath('GET', 'stats/timeseries')).toBe('stats/timeseries');
    expect(checkPassthroughPath('GET', 'memories/abc-1/history')).toBe('memories/abc-1/history');
    expect(checkPassthroughPath('POST', 'documents/doc.1/reprocess')).toBe('documents/doc.1/reprocess');
    expect(checkPassthroughPath('POST', 'mental-models/m1/refresh')).toBe('mental-models/m1/refresh');
    expect(checkPassthroughPath('POST', 'recall')).toBe('memories/recall');
    expect(checkPassthroughPath('GET', 'document-transfer')).toBe('document-transfer');
  });

  it('refuses other paths, other methods, "..", "%" and empty segments with memory.invalid_path', () => {
    for (const [method, path] of [['GET', 'secrets'], ['DELETE', 'stats'], ['GET', 'documents/..'], ['GET', 'documents/a%2Fb'], ['GET', 'documents//x'], ['GET', 'memories/x/history/more'], ['GET', '']]) {
      expect(() => checkPassthroughPath(method!, path!), `${method} ${path}`).toThrow(expect.objectContaining({ code: 'memory.invalid_path' }));
    }
  });
});
