import { describe, expect, it } from 'vitest';
import { isSecretKey, redactSecrets, TOO_DEEP } from './redact.js';

describe('redactSecrets', () => {
  it.each(['api_key', 'apikey', 'API_KEY', 'token', 'github_token', 'token_id', 'client_secret', 'password', 'password_hash', 'Authorization'])(
    'treats %s as secret', (key) => expect(isSecretKey(key)).toBe(true),
  );

  it.each(['tokens_used', 'monkey', 'hashtag', 'passwords', 'name', 'authorized'])(
    'leaves %s alone', (key) => expect(isSecretKey(key)).toBe(false),
  );

  it('copies instead of mutating, and survives reference cycles', () => {
    const details: Record<string, unknown> = { token: 't', nested: { keep: 1 } };
    details.self = details;
    expect(redactSecrets(details)).toEqual({ token: '***', nested: { keep: 1 }, self: '[circular]' });
    expect(details.token).toBe('t');
  });

  it('masks the password of every URL, whatever the key (a settings.update row)', () => {
    const row = { changes: { 'memory.pgvector_url': { before: '', after: 'postgres://svc:hunter2@db/mem' } }, note: 'moved to https://tok@h/x' };
    expect(JSON.stringify(redactSecrets(row))).not.toContain('hunter2');
    expect(redactSecrets(row)).toEqual({ changes: { 'memory.pgvector_url': { before: '', after: 'postgres://svc:***@db/mem' } }, note: 'moved to https://***@h/x' });
  });
});

describe('redactSecrets on a value nested past any detail svc records', () => {
  it('names the deep part instead of overflowing the stack, and still redacts above it', () => {
    let deep: Record<string, unknown> = { token: 't' };
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const redacted = JSON.stringify(redactSecrets({ token: 'secret', deep }));
    expect(redacted).toContain(`"${TOO_DEEP}"`);
    expect(redacted).not.toContain('secret');
  });
});
