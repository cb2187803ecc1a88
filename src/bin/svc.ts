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
/**
 * `svc serve`'s start-up is over this long after it listens: the work after listen (the model
 * scan, boot starts) has run and compiled by then, so the code cache is saved then.
 */
const STARTUP_OVER_AFTER_MS = 3_000;

const trace = process.env.SVC_TRACE_STARTUP === '1' ? (line: string) => process.stderr.write(`svc: ${line}\n`) : undefined;
const bundled = process.env.SVC_BUNDLE !== '0' && existsSync(BUNDLE);

if (bundled) {
  const loaded = loadBundle<typeof Main>(BUNDLE, codeCacheDir());
  trace?.(`loaded ${relative(process.cwd(), BUNDLE) || BUNDLE} in ${loaded.loadMs.toFixed(1)} ms, code cache ${loaded.cache}${loaded.cacheFile ? ` (${loaded.cacheFile})` : ''}`);
  const stale = loaded.cache === 'miss' || loaded.cache === 'rejected';
  const startupOver = () => {
    setTimeout(() => {
      void loaded.finishStartup().then((bytes) => {
        if (stale) trace?.(bytes > 0 ? `code cache saved: ${bytes} bytes` : 'code cache could not be saved');
      });
    }, STARTUP_OVER_AFTER_MS).unref();
  };
  await loaded.exports.main({ onServing: startupOver });
} else {
  trace?.(`loading the module tree (${process.env.SVC_BUNDLE === '0' ? 'SVC_BUNDLE=0' : 'no bundle'})`);
  await (await import('./main.js')).main();
}
