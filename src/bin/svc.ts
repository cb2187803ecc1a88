#!/usr/bin/env node
// The `svc` executable. It loads svc from the single-file build (dist/bundle/svc.cjs) with a
// code cache (launch.ts), and from the module tree beside it when there is no bundle or an
// older one (a build by tsc alone), or when SVC_BUNDLE=0 (stack traces that name the files).
import { existsSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codeCacheDir } from './code-cache.js';
import { loadBundle } from './launch.js';
import type * as Main from './main.js';

const BUNDLE = fileURLToPath(new URL('../bundle/svc.cjs', import.meta.url));
/** The code cache is saved this long after `svc serve` listens: by then the work after listen (the model scan, boot starts) has compiled too. */
const SAVE_CACHE_AFTER_MS = 3_000;

const MAIN = fileURLToPath(new URL('./main.js', import.meta.url));
const CHECKOUT_SOURCE = fileURLToPath(new URL('../../src/bin/svc.ts', import.meta.url));

const trace = process.env.SVC_TRACE_STARTUP === '1' ? (line: string) => process.stderr.write(`svc: ${line}\n`) : undefined;

/** Why the module tree runs instead of the bundle; undefined: the bundle runs. */
function treeReason(): string | undefined {
  if (process.env.SVC_BUNDLE === '0') return 'SVC_BUNDLE=0';
  if (!existsSync(BUNDLE)) return 'no bundle';
  // In a checkout, tsc alone (or tsc --watch) may have rewritten the module tree after the
  // bundle was made: the bundle would run older code. An installed package has no src/, and
  // its files' dates are the unpacking's, in no particular order: its bundle always runs.
  if (existsSync(CHECKOUT_SOURCE) && statSync(BUNDLE).mtimeMs < (statSync(MAIN, { throwIfNoEntry: false })?.mtimeMs ?? 0)) {
    process.stderr.write('svc: dist/bundle/svc.cjs is older than the compiled code; running the module tree (`npm run build` makes the bundle anew)\n');
    return 'the bundle is older than dist/bin/main.js';
  }
  return undefined;
}
const tree = treeReason();
const bundled = tree === undefined;

if (bundled) {
  const loaded = loadBundle<typeof Main>(BUNDLE, codeCacheDir());
  trace?.(`loaded ${relative(process.cwd(), BUNDLE) || BUNDLE} in ${loaded.loadMs.toFixed(1)} ms, code cache ${loaded.cache}${loaded.cacheFile ? ` (${loaded.cacheFile})` : ''}`);
  const saveCache = () => {
    trace?.(`code cache ${loaded.cache}: saving it in ${SAVE_CACHE_AFTER_MS} ms`);
    setTimeout(() => {
      void loaded.saveCache().then((bytes) => trace?.(bytes > 0 ? `code cache saved: ${bytes} bytes` : 'code cache could not be saved'));
    }, SAVE_CACHE_AFTER_MS).unref();
  };
  // Said at once, so a test knows no save is coming without waiting out the delay.
  const nothingToSave = () => trace?.(`code cache ${loaded.cache}: nothing to save`);
  const stale = loaded.cache === 'miss' || loaded.cache === 'rejected';
  await loaded.exports.main({ onServing: stale ? saveCache : nothingToSave });
} else {
  trace?.(`loading the module tree (${tree})`);
  await (await import('./main.js')).main();
}
