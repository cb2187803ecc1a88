// Where this build's files are, for the few places that name a file of svc's own at run time
// (an engine's entry point, the manifest, package.json). svc runs from one of three layouts,
// and each keeps its code one folder below CODE_DIR:
//   src/<layer>/*.ts      under the tests (vitest)
//   dist/<layer>/*.js     the compiled module tree (SVC_BUNDLE=0)
//   dist/bundle/svc.cjs   the single-file build the `svc` executable loads (scripts/bundle.mjs
//                         gives it its own file URL as import.meta.url)
// so one path relative to this module's URL is right in all three; a URL relative to each
// caller's own file would not be, once the callers are bundled into one file.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/ (src/ under the tests): the folder holding one folder per layer. */
export const CODE_DIR: string = fileURLToPath(new URL('..', import.meta.url));

/** The package's root: package.json, manifest.json, dist/. */
export const PACKAGE_ROOT: string = dirname(CODE_DIR);

/** A file of the compiled module tree, by its path below dist/ (e.g. 'engines/builtin/main.js'). */
export const codeFile = (relative: string): string => join(CODE_DIR, relative);
