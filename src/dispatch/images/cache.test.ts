import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../protocol/errors.js';
import { beyondCaps, ImageCache, type ImageCachePrune } from './cache.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-images-'));
  dirs.push(d);
  return d;
};

async function missCode(cache: ImageCache, name: string): Promise<string> {
  const error = await cache.read(name).then(() => undefined, (e: unknown) => e);
  return error instanceof SvcError ? error.code : String(error);
}

describe('ImageCache', () => {
  it('stores under a fresh uuid name and reads the same bytes back', async () => {
    const cache = new ImageCache(join(tempDir(), 'images', 'cache'));
    const name = await cache.store(Buffer.from('png bytes'));
    expect(name).toMatch(/^[0-9a-f-]{36}\.png$/);
    expect((await cache.read(name)).toString()).toBe('png bytes');
    expect(ImageCache.url(name)).toBe(`/api/images/cache/${name}`);
    expect(await cache.store(Buffer.from('x'))).not.toBe(name);
  });

  it('reads only names of the cache shape: traversal and unknown names are image.cache_miss', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'secret.png'), 'secret');
    const cache = new ImageCache(join(root, 'cache'));
    expect(await missCode(cache, '../secret.png')).toBe('image.cache_miss');
    expect(await missCode(cache, '%2e%2e%2fsecret.png')).toBe('image.cache_miss');
    expect(await missCode(cache, '00000000-0000-0000-0000-000000000000.png')).toBe('image.cache_miss');
  });

  it('keeps the newest maxFiles images and leaves other files alone', async () => {
    const dir = tempDir();
    const cache = new ImageCache(dir, 2);
    const names = ['a', 'b', 'c', 'd'].map((c) => `${c.repeat(8)}-0000-0000-0000-000000000000.png`);
    names.forEach((name, i) => {
      writeFileSync(join(dir, name), String(i));
      utimesSync(join(dir, name), 1000 + i, 1000 + i);
    });
    writeFileSync(join(dir, 'notes.txt'), 'kept');
    expect(await cache.prune()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([...names.slice(2), 'notes.txt'].sort());
  });
});

describe('the bounds of the image cache', () => {
  const files = (...sizes: number[]) => sizes.map((size, i) => ({ n: `f${i}`, size }));

  it('beyondCaps removes the oldest past the file cap, then past the byte cap, never the newest', () => {
    expect(beyondCaps(files(10, 10, 10), 3, 100)).toEqual({ doomed: [], reason: 'max_bytes' });
    expect(beyondCaps(files(10, 10, 10, 10), 3, 100).doomed.map((f) => f.n)).toEqual(['f0']);
    expect(beyondCaps(files(50, 50, 50), 10, 100)).toEqual({ doomed: files(50), reason: 'max_bytes' });
    expect(beyondCaps(files(10, 500), 10, 100).doomed.map((f) => f.n)).toEqual(['f0']); // the newest alone stays
  });

  it('keeps the images within maxBytes and reports what it removed', async () => {
    const dir = tempDir();
    const prunes: ImageCachePrune[] = [];
    const cache = new ImageCache(dir, 100, 2500, (p) => prunes.push(p));
    const names = ['a', 'b', 'c'].map((c) => `${c.repeat(8)}-0000-0000-0000-000000000000.png`);
    names.forEach((name, i) => {
      writeFileSync(join(dir, name), Buffer.alloc(1000));
      utimesSync(join(dir, name), 1000 + i, 1000 + i);
    });
    expect(await cache.prune()).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(names.slice(1));
    expect(prunes).toEqual([{ reason: 'max_bytes', removed: 1, rows: 2, bytes: 2000 }]);
  });
});
