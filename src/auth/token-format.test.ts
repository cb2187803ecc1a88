import { describe, expect, it } from 'vitest';
import { bearerOf, newToken, parseToken } from './token-format.js';

describe('token format', () => {
  it('makes svc_<8 hex>.<43 base64url> tokens that parse back', () => {
    const token = newToken(new Set());
    expect(token.raw).toMatch(/^svc_[0-9a-f]{8}\.[A-Za-z0-9_-]{43}$/);
    expect(parseToken(token.raw)).toEqual({ id: token.id, secret: token.secret });
  });

  it('never reuses an id that is taken', () => {
    const first = newToken(new Set());
    const taken = new Set([first.id]);
    for (let i = 0; i < 50; i++) expect(newToken(taken).id).not.toBe(first.id);
  });

  it('refuses anything else', () => {
    const { raw } = newToken(new Set());
    for (const bad of ['', 'svc_', raw.slice(0, -1), `${raw}x`, raw.replace('svc_', 'sk_'), raw.replace('.', '_'), raw.toUpperCase(), ` ${raw}`]) {
      expect(parseToken(bad)).toBeUndefined();
    }
  });

  it('reads the bearer of an Authorization header', () => {
    expect(bearerOf(undefined)).toBeUndefined();
    expect(bearerOf('Bearer abc')).toBe('abc');
    expect(bearerOf('bearer   abc ')).toBe('abc');
    expect(bearerOf('Basic dXNlcjpwdw==')).toBe('');
    expect(bearerOf('Bearer')).toBe('');
    expect(bearerOf('Bearer a b')).toBe('');
  });
});
