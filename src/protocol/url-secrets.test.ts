import { describe, expect, it } from 'vitest';
import { keepMaskedSecrets, maskUrlSecrets, maskUrlSecretsIn } from './url-secrets.js';

describe('maskUrlSecrets', () => {
  it('hides the password and keeps the user name', () => {
    expect(maskUrlSecrets('postgres://svc:s3cret@db.lan:5432/mem')).toBe('postgres://svc:***@db.lan:5432/mem');
    expect(maskUrlSecrets('postgresql://svc:p%40ss@db/mem?sslmode=require')).toBe('postgresql://svc:***@db/mem?sslmode=require');
    // An unescaped "@" in the password: everything up to the last "@" of the authority goes.
    expect(maskUrlSecrets('postgres://svc:p@ss@db/mem')).toBe('postgres://svc:***@db/mem');
  });

  it('hides a userinfo without a password whole (a token in the user slot)', () => {
    expect(maskUrlSecrets('https://ghp_abc123@github.com/o/r.git')).toBe('https://***@github.com/o/r.git');
    expect(maskUrlSecrets('https://svc:@host/')).toBe('https://svc:@host/');
  });

  it('hides the values of secret-named query parameters', () => {
    expect(maskUrlSecrets('https://tools.lan/mcp?api_key=abc&region=eu&token=t1')).toBe('https://tools.lan/mcp?api_key=***&region=eu&token=***');
    expect(maskUrlSecrets('https://b.s3/x?X-Amz-Signature=f00&X-Amz-Credential=AK%2F1')).toBe('https://b.s3/x?X-Amz-Signature=***&X-Amz-Credential=***');
    expect(maskUrlSecrets('https://h/cb#access_token=abc')).toBe('https://h/cb#access_token=***');
    expect(maskUrlSecrets('https://h/p?monkey=1&keyword=x')).toBe('https://h/p?monkey=1&keyword=x');
  });

  it('leaves URLs without secrets, and text without URLs, as they are', () => {
    for (const plain of ['http://127.0.0.1:8080', 'https://registry.modelcontextprotocol.io/v0/servers?cursor=2', 'mail me at a@b.c', 'https://h/path/a@b', '']) {
      expect(maskUrlSecrets(plain)).toBe(plain);
    }
  });

  it('masks every URL inside a message', () => {
    expect(maskUrlSecrets('connect to postgres://u:pw@h/db failed; tried "https://x:y@z/" too'))
      .toBe('connect to postgres://u:***@h/db failed; tried "https://x:***@z/" too');
  });
});

describe('maskUrlSecretsIn', () => {
  it('masks every string at any depth, and leaves keys, numbers and the input alone', () => {
    const settings = { memory: { pgvector_url: 'postgres://u:pw@h/db', top_k: 5, urls: ['https://t@h/'] }, ok: true };
    expect(maskUrlSecretsIn(settings)).toEqual({ memory: { pgvector_url: 'postgres://u:***@h/db', top_k: 5, urls: ['https://***@h/'] }, ok: true });
    expect(settings.memory.pgvector_url).toBe('postgres://u:pw@h/db');
  });
});

describe('keepMaskedSecrets', () => {
  const stored = { memory: { pgvector_url: 'postgres://u:pw@h/db', hindsight_url: '' }, peers: ['https://t@p1/', 'https://p2/'] };

  it('puts the stored value back where the patch sends exactly its masked form', () => {
    expect(keepMaskedSecrets({ memory: { pgvector_url: 'postgres://u:***@h/db' } }, stored)).toEqual({ memory: { pgvector_url: 'postgres://u:pw@h/db' } });
    expect(keepMaskedSecrets({ peers: ['https://***@p1/', 'https://p3/'] }, stored)).toEqual({ peers: ['https://t@p1/', 'https://p3/'] });
  });

  it('takes any other value as written: a new password, another host, another key', () => {
    expect(keepMaskedSecrets({ memory: { pgvector_url: 'postgres://u:new@h/db' } }, stored)).toEqual({ memory: { pgvector_url: 'postgres://u:new@h/db' } });
    // Keeping the secret while moving it to a host of the writer's choice is not possible.
    expect(keepMaskedSecrets({ memory: { pgvector_url: 'postgres://u:***@evil/db' } }, stored)).toEqual({ memory: { pgvector_url: 'postgres://u:***@evil/db' } });
    expect(keepMaskedSecrets({ memory: { hindsight_url: 'postgres://u:***@h/db' } }, stored)).toEqual({ memory: { hindsight_url: 'postgres://u:***@h/db' } });
    expect(keepMaskedSecrets({ memory: null, x: 1 }, stored)).toEqual({ memory: null, x: 1 });
  });

  it('looks only at own properties', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": "https://u:***@h/"}}') as Record<string, unknown>;
    expect(Object.keys(keepMaskedSecrets(patch, {}))).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
