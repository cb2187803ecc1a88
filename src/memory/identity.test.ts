import { describe, expect, it } from 'vitest';
import { SvcError } from '../protocol/errors.js';
import { bankOfNamespace, checkBankId, identityFromHeaders, readBanks, visibleTo, writeTarget } from './identity.js';

describe('memory identity', () => {
  it('takes the agent from X-Svc-Agent, anonymous when absent, private from X-Svc-Private', () => {
    expect(identityFromHeaders({})).toEqual({ agent: 'anonymous', private: false });
    expect(identityFromHeaders({ 'x-svc-agent': 'hermes', 'x-svc-private': 'Yes' })).toEqual({ agent: 'hermes', private: true });
    for (const on of ['1', 'true', 'on']) expect(identityFromHeaders({ 'x-svc-private': on }).private).toBe(true);
    expect(identityFromHeaders({ 'x-svc-private': 'no' }).private).toBe(false);
  });

  it('refuses an agent id outside the pattern', () => {
    for (const bad of ['a b', 'x'.repeat(65), "o'hara", '../etc', 'a:b']) {
      expect(() => identityFromHeaders({ 'x-svc-agent': bad })).toThrow(SvcError);
      try {
        identityFromHeaders({ 'x-svc-agent': bad });
      } catch (error) {
        expect((error as SvcError).code).toBe('memory.agent_id_invalid');
      }
    }
  });

  it('maps namespaces to banks and checks bank ids', () => {
    expect(bankOfNamespace('shared')).toBe('shared');
    expect(bankOfNamespace('private:hermes')).toBe('private__hermes');
    expect(() => bankOfNamespace('project:x')).toThrow(/namespace/);
    expect(() => checkBankId('../x')).toThrow(/bank id/);
  });

  it('writes to shared with tags under unified_bank, else a private write to its own bank', () => {
    expect(writeTarget({ agent: 'a', private: true }, true)).toEqual({ bank: 'shared', tags: ['agent:a', 'visibility:private'] });
    expect(writeTarget({ agent: 'a', private: true }, false)).toEqual({ bank: 'private__a', tags: ['agent:a', 'visibility:private'] });
    expect(writeTarget({ agent: 'a', private: false }, false)).toEqual({ bank: 'shared', tags: ['agent:a'] });
    expect(readBanks({ agent: 'a', private: false }, false)).toEqual(['shared', 'private__a']);
  });

  it("never shows another agent's private items", () => {
    expect(visibleTo('b', ['agent:a', 'visibility:private'])).toBe(false);
    expect(visibleTo('a', ['agent:a', 'visibility:private'])).toBe(true);
    expect(visibleTo('b', ['agent:a'])).toBe(true);
  });
});
