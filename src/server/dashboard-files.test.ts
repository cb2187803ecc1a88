import { describe, expect, it } from 'vitest';
import { chooseEncoding, type Encoding, decidePath, fallsBackToIndex, headersFor, isHashedAsset, isReservedPath } from './dashboard-files.js';

const all = new Set<Encoding>(['identity', 'gzip', 'br']);

describe('the path a request names', () => {
  it('is index.html itself for the root', () => {
    for (const path of ['/', '//', '/index.html']) expect(decidePath(path), path).toEqual({ kind: 'index' });
  });

  it('is a path below the root otherwise, percent-decoded', () => {
    expect(decidePath('/assets/index-AbC12345.js')).toEqual({ kind: 'file', file: 'assets/index-AbC12345.js' });
    expect(decidePath('/favicon.ico')).toEqual({ kind: 'file', file: 'favicon.ico' });
    expect(decidePath('//assets//a.css')).toEqual({ kind: 'file', file: 'assets/a.css' });
    expect(decidePath('/slots/abc/')).toEqual({ kind: 'file', file: 'slots/abc' });
    expect(decidePath('/models/org%2Frepo')).toEqual({ kind: 'file', file: 'models/org/repo' });
  });

  it('falls back to index.html for views the build has no file for, not for missing assets', () => {
    for (const view of ['slots', 'slots/abc', 'models/qwen3-0.6b', 'models/Qwen3-0.6B-Q8_0.gguf', 'settings', 'x.constructor', 'models/a.json']) {
      expect(fallsBackToIndex(view), view).toBe(true);
    }
    for (const asset of ['assets/index-AbC12345.js', 'assets/gone', 'favicon.ico', 'robots.txt', 'main.js']) expect(fallsBackToIndex(asset), asset).toBe(false);
  });

  it('leaves /api and /v1 to the API, encoded or not', () => {
    for (const path of ['/api', '/api/', '/api/nope', '/v1', '/v1/nope.json', '/%61pi/nope', '/v1%2Fnope']) {
      expect(decidePath(path), path).toEqual({ kind: 'reserved' });
    }
    expect(isReservedPath('/apis')).toBe(false);
    expect(isReservedPath('/v10')).toBe(false);
    expect(decidePath('/apis')).toEqual({ kind: 'file', file: 'apis' });
  });

  it('refuses what could climb out of the build or is not a path', () => {
    for (const path of ['/../etc/passwd', '/assets/../../x.js', '/%2e%2e/secret.txt', '/a/%2E%2E%2Fb.js', '/./index.html', '/a%5C..%5Cb.js', '/x%00.js', '/%E0%A4%A']) {
      expect(decidePath(path).kind, path).toBe('refused');
    }
  });
});

describe('the encoding sent', () => {
  it('prefers brotli, then gzip, when the client accepts them', () => {
    expect(chooseEncoding('gzip, deflate, br', all)).toBe('br');
    expect(chooseEncoding('gzip', all)).toBe('gzip');
    expect(chooseEncoding('br;q=0, gzip;q=0.5', all)).toBe('gzip');
    expect(chooseEncoding('*', all)).toBe('br');
    expect(chooseEncoding('*, br;q=0', all)).toBe('gzip');
  });

  it('is the file itself without Accept-Encoding, for identity, or when no copy exists', () => {
    expect(chooseEncoding(undefined, all)).toBe('identity');
    expect(chooseEncoding('identity', all)).toBe('identity');
    expect(chooseEncoding('gzip;q=0, br;q=0', all)).toBe('identity');
    expect(chooseEncoding('br, gzip', new Set<Encoding>(['identity']))).toBe('identity');
    expect(chooseEncoding('br', new Set<Encoding>(['identity', 'gzip']))).toBe('identity');
  });
});

describe('the headers of a file', () => {
  it('make hashed assets immutable and everything else revalidated', () => {
    expect(isHashedAsset('assets/index-BxH3kz_Q.js')).toBe(true);
    expect(isHashedAsset('assets/logo-a-9b_C2d3e.svg')).toBe(true);
    expect(isHashedAsset('assets/logo.svg')).toBe(false);
    expect(isHashedAsset('index-BxH3kz_Q.js')).toBe(false);
    expect(headersFor('assets/index-BxH3kz_Q.js', 'identity', 'e')['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(headersFor('index.html', 'identity', 'e')['cache-control']).toBe('no-cache');
    expect(headersFor('favicon.ico', 'identity', 'e')['cache-control']).toBe('no-cache');
  });

  it('carry the type, the policy, nosniff, and the encoding with its own validator', () => {
    const html = headersFor('index.html', 'identity', 'abc');
    expect(html).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff', vary: 'Accept-Encoding', etag: '"abc"' });
    expect(html['content-encoding']).toBeUndefined();
    expect(html['content-security-policy']).toContain("script-src 'self'");
    expect(html['content-security-policy']).toContain("connect-src 'self'");
    // The Playground plays speech it fetched from an object URL; nothing else is loosened.
    expect(html['content-security-policy']).toContain("media-src 'self' blob:");
    expect(html['content-security-policy']).not.toContain('unsafe-inline');
    expect(headersFor('assets/a-12345678.css', 'br', 'abc')).toMatchObject({ 'content-type': 'text/css; charset=utf-8', 'content-encoding': 'br', etag: '"abc-br"' });
    expect(headersFor('assets/a-12345678.js', 'gzip', 'abc')).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'content-encoding': 'gzip' });
    expect(headersFor('blob.bin', 'identity', 'x')['content-type']).toBe('application/octet-stream');
  });
});
