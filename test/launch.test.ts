import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheFileFor, codeCacheDir, writeCodeCache } from '../src/bin/code-cache.js';
import { REPO_ROOT } from './helpers/gateway.js';

interface Loaded {
  cache: string;
  cacheFile?: string;
  answer: string;
  url: string;
  saved: number;
}

/**
 * Load `file` with the built launcher in a process of its own, as `svc` does: V8 keeps what it
 * compiled for the life of a process, so a second load in the same one would never read a cache.
 */
function load(file: string, cacheDir: string | undefined, options: { save?: boolean } = {}): Loaded {
  const launcher = pathToFileURL(join(REPO_ROOT, 'dist/bin/launch.js')).href;
  // A script file, not -e: the code of -e would be part of the flags that name the cache.
  const driver = join(dirname(file), 'driver.mjs');
  writeFileSync(driver, `
    const { loadBundle } = await import(${JSON.stringify(launcher)});
    const [file, cacheDir, save] = process.argv.slice(2);
    const loaded = loadBundle(file, cacheDir || undefined);
    const saved = save === 'save' ? await loaded.saveCache() : 0;
    console.log(JSON.stringify({ cache: loaded.cache, cacheFile: loaded.cacheFile, answer: loaded.exports.answer(), url: loaded.exports.url, saved }));`);
  const run = spawnSync(process.execPath, [driver, file, cacheDir ?? '', options.save ? 'save' : ''], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the launcher failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as Loaded;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-launch-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A CommonJS file shaped like the bundle: it exports, requires a node: module and reads its import.meta.url. */
function writeBundle(dir: string, answer: string): string {
  const file = join(dir, 'svc.cjs');
  writeFileSync(file, [
    "var path = require('node:path');",
    'exports.url = __svc_import_meta_url;',
    `exports.answer = function answer() { return path.basename(${JSON.stringify(answer)}); };`,
  ].join('\n'));
  return file;
}

describe('loadBundle', () => {
  it('runs the bundle, then compiles from the cache it saved', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 'forty-two');
    const cacheDir = join(dir, 'cache');
    const first = load(file, cacheDir, { save: true });
    expect(first.cache).toBe('miss');
    expect(first.answer).toBe('forty-two');
    expect(first.url).toBe(pathToFileURL(file).href);
    expect(first.saved).toBeGreaterThan(0);
    // Readable and writable by its owner alone, in a directory only the owner enters.
    expect(statSync(first.cacheFile!).mode & 0o777).toBe(0o600);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);

    const second = load(file, cacheDir);
    expect(second.cache).toBe('hit');
    expect(second.cacheFile).toBe(first.cacheFile);
    expect(second.answer).toBe('forty-two');
  });

  it('never uses one build’s cache for another build of the same length', () => {
    const dir = tempDir();
    const cacheDir = join(dir, 'cache');
    const one = load(writeBundle(dir, 'aaaa'), cacheDir, { save: true });
    // Same length, other bytes: V8 itself would take the old cache (it checks the length only).
    const other = load(writeBundle(dir, 'bbbb'), cacheDir);
    expect(other.cache).toBe('miss');
    expect(other.cacheFile).not.toBe(one.cacheFile);
    expect(other.answer).toBe('bbbb');
  });

  it('compiles from source when V8 rejects the cache, and saves a good one', async () => {
    const dir = tempDir();
    const file = writeBundle(dir, 'fresh');
    const cacheDir = join(dir, 'cache');
    const { cacheFile } = load(file, cacheDir);
    await writeCodeCache(cacheFile!, Buffer.from('not a code cache at all'));
    const rejected = load(file, cacheDir, { save: true });
    expect(rejected.cache).toBe('rejected');
    expect(rejected.answer).toBe('fresh');
    expect(rejected.saved).toBeGreaterThan(0);
    expect(load(file, cacheDir).cache).toBe('hit');
  });

  it('does not read a cache that someone else could have written', () => {
    const dir = tempDir();
    const file = writeBundle(dir, 'safe');
    const cacheDir = join(dir, 'cache');
    const first = load(file, cacheDir, { save: true });
    chmodSync(first.cacheFile!, 0o666);
    const loaded = load(file, cacheDir, { save: true });
    expect(loaded.cache).toBe('unsafe');
    expect(loaded.answer).toBe('safe');
    expect(loaded.saved).toBe(0);
    expect(statSync(first.cacheFile!).mode & 0o777).toBe(0o666);
  });

  it('reads a bundle that is not ASCII as UTF-8', () => {
    const dir = tempDir();
    const loaded = load(writeBundle(dir, 'café ☕'), undefined);
    expect(loaded.cache).toBe('off');
    expect(loaded.answer).toBe('café ☕');
  });
});

describe('the code cache directory', () => {
  it('is SVC_CACHE_DIR, else XDG_CACHE_HOME/svc, else ~/.cache/svc; SVC_CODE_CACHE=0 turns it off', () => {
    expect(codeCacheDir({ SVC_CACHE_DIR: '/c/svc', XDG_CACHE_HOME: '/x' })).toBe('/c/svc/code-cache');
    expect(codeCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/svc/code-cache');
    expect(codeCacheDir({})).toMatch(/\/\.cache\/svc\/code-cache$/);
    expect(codeCacheDir({ SVC_CODE_CACHE: '0', XDG_CACHE_HOME: '/x' })).toBeUndefined();
  });

  it('names a cache by the build, the Node binary and the flags', () => {
    const name = cacheFileFor('/c', 'ab'.repeat(32));
    expect(name).toMatch(new RegExp(`^/c/abababababababab-node${process.version.slice(1).replace(/\./g, '\\.')}-${process.arch}-[0-9a-f]{8}\\.bin$`));
  });

  it('keeps the newest eight caches', async () => {
    const dir = tempDir();
    for (let i = 0; i < 10; i++) {
      const file = join(dir, `build${i}.bin`);
      await writeCodeCache(file, Buffer.from([i]));
      utimesSync(file, 1_000 + i, 1_000 + i);
    }
    await writeCodeCache(join(dir, 'newest.bin'), Buffer.from([99]));
    const kept = readdirSync(dir).sort();
    expect(kept).toHaveLength(8);
    expect(kept).toContain('newest.bin');
    expect(kept).not.toContain('build0.bin');
    expect(kept).not.toContain('build2.bin');
    expect(kept).toContain('build3.bin');
    expect(kept).toContain('build9.bin');
  });
});
