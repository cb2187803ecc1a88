#!/usr/bin/env node
// The `svc` executable. It loads svc from the single-file build (dist/bundle/svc.cjs) with a
// code cache (launch.ts), and from the module tree beside it when there is no bundle (a
// build by tsc alone) or when SVC_BUNDLE=0 (stack traces that name the source's own files).
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeCacheDir } from './code-cache.js';
import { loadBundle } from './launch.js';
import type * as Main from './main.js';

const BUNDLE = fileURLToPath(new URL('../bundle/svc.cjs', import.meta.url));
/** The code cache is saved this long after `svc serve` listens: by then the work after listen (the model scan, boot starts) has compiled too. */
const SAVE_CACHE_AFTER_MS = 3_000;

const trace = process.env.SVC_TRACE_STARTUP === '1' ? (line: string) => process.stderr.write(`svc: ${line}\n`) : undefined;
const bundled = process.env.SVC_BUNDLE !== '0' && existsSync(BUNDLE);

if (bundled) {
  const loaded = loadBundle<typeof Main>(BUNDLE, codeCacheDir());
  trace?.(`loaded ${relative(process.cwd(), BUNDLE) || BUNDLE} in ${loaded.loadMs.toFixed(1)} ms, code cache ${loaded.cache}${loaded.cacheFile ? ` (${loaded.cacheFile})` : ''}`);
  const saveCache = () => {
    setTimeout(() => {
      void loaded.saveCache().then((bytes) => trace?.(bytes > 0 ? `code cache saved: ${bytes} bytes` : 'code cache could not be saved'));
    }, SAVE_CACHE_AFTER_MS).unref();
  };
  const stale = loaded.cache === 'miss' || loaded.cache === 'rejected';
  await loaded.exports.main({ onServing: stale ? saveCache : undefined });
} else {
  trace?.(`loading the module tree (${process.env.SVC_BUNDLE === '0' ? 'SVC_BUNDLE=0' : 'no bundle'})`);
  await (await import('./main.js')).main();
}
