import { describe, expect, it } from 'vitest';
import { TOKEN_SCOPES } from '../../../../src/protocol/vocabulary.js';
import { identityWords, SCOPE_WORDS, when } from './words.js';

describe('access words', () => {
  it('names every caller kind without a credential', () => {
    expect(identityWords({ kind: 'anonymous' })).toBe('anonymous (no credential)');
    expect(identityWords({ kind: 'token', id: 'ab12', label: 'laptop', scope: 'v1-only' })).toBe('token "laptop" (ab12, scope v1-only)');
    expect(identityWords({ kind: 'proxy', label: 'alice', scope: 'admin' })).toContain('alice');
  });

  it('describes every scope the wire knows', () => {
    for (const scope of TOKEN_SCOPES) expect(SCOPE_WORDS[scope]).toBeTruthy();
  });

  it('writes times in UTC, and a token never used as never', () => {
    expect(when('2026-11-23T18:34:16.001Z')).toBe('2026-11-23 18:34 UTC');
    expect(when(null)).toBe('never');
    expect(when('garbage')).toBe('garbage');
  });
});
