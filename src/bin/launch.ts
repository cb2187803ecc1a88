// Loading svc from its single-file build (dist/bundle/svc.cjs, made by scripts/bundle.mjs)
// through a V8 code cache. Node 20 has no compile cache of its own, and start-up was mostly
// Node finding, reading and compiling several hundred modules: one file read and a cache of
// the functions compiled last time take that from ~400 to ~180 ms (docs/performance.md).
//
// Only node: modules here: this runs before anything of svc is loaded.
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { cacheFileFor, writeCodeCache } from './code-cache.js';

/** How the cache served this start: used, none yet, refused by V8 (another build or flags), unsafe to read, or turned off. */
export type CacheOutcome = 'hit' | 'miss' | 'rejected' | 'unsafe' | 'off';

export interface LoadedBundle<T> {
  readonly exports: T;
  readonly cache: CacheOutcome;
  readonly cacheFile: string | undefined;
  /** Reading, compiling and running the bundle's top level, in ms. */
  readonly loadMs: number;
  /** Save the code of every function compiled so far. Resolves to the bytes written (0: they could not be). */
  saveCache(): Promise<number>;
}

const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/** The bundle's source, as a one-byte string when it is ASCII (the build makes it so): read as UTF-8, 4 MB took 14 ms here instead of 7. */
function readSource(file: string): { source: string; digest: string } {
  const bytes = readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  return { source: bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8'), digest };
}

/**
 * The cache file's bytes, or why not. V8 checks a cache only against the source's length and
 * its own version and flags, and runs what it holds: a file anyone else could have written
 * (another owner, group- or world-writable) is never read.
 */
function readCache(file: string): Buffer | 'miss' | 'unsafe' {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return 'miss';
  }
  try {
    const stat = fstatSync(fd);
    const ownUid = process.getuid?.() ?? stat.uid;
    if (!stat.isFile() || stat.uid !== ownUid || (stat.mode & 0o022) !== 0 || stat.size > MAX_CACHE_BYTES) return 'unsafe';
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Compile and run the CommonJS bundle at `file` the way Node runs a .cjs module, with a code
 * cache from `cacheDir` (undefined: no cache). Its `import.meta.url` is the bundle's own URL.
 */
export function loadBundle<T>(file: string, cacheDir: string | undefined): LoadedBundle<T> {
  const started = performance.now();
  const { source, digest } = readSource(file);
  const cacheFile = cacheDir === undefined ? undefined : cacheFileFor(cacheDir, digest);
  const cached = cacheFile === undefined ? 'miss' : readCache(cacheFile);
  const wrapper = `(function (exports, require, module, __filename, __dirname, __svc_import_meta_url) {${source}\n})`;
  const script = new vm.Script(wrapper, {
    filename: file,
    cachedData: typeof cached === 'string' ? undefined : cached,
  });
  const cache: CacheOutcome = cacheFile === undefined ? 'off' : typeof cached === 'string' ? cached : script.cachedDataRejected ? 'rejected' : 'hit';
  const module = { exports: {} as T };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);
  return {
    exports: module.exports,
    cache,
    cacheFile,
    loadMs: performance.now() - started,
    async saveCache() {
      return cacheFile === undefined || cache === 'unsafe' ? 0 : writeCodeCache(cacheFile, script.createCachedData());
    },
  };
}
