// Bundle the compiled CLI and server (dist/bin/main.js and all it imports, dependencies
// included) into one CommonJS file, dist/bundle/svc.cjs, which the `svc` executable loads with
// a V8 code cache (src/bin/launch.ts). Run by `npm run build` after tsc.
//
// Why one file: at start-up Node spent most of its time finding, reading and compiling
// several hundred modules one at a time (docs/performance.md, "Start-up"). Why CommonJS:
// V8's code cache is reachable from Node 20 only through vm.Script, which compiles scripts,
// not ES modules.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'dist/bundle/svc.cjs');

/**
 * Left to Node's loader: native addons (a .node file cannot be bundled; node-llama-cpp runs
 * only in the engine's own process), and what Fastify loads only on demand and svc never asks
 * for (its schema compilers, which svc replaces; inject(), which only tests use), so that
 * their code is not even parsed.
 */
const EXTERNAL = [
  'better-sqlite3', '@node-rs/argon2', '@node-rs/bcrypt', 'node-llama-cpp',
  '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'light-my-request',
];

rmSync(dirname(OUT), { recursive: true, force: true });
const result = await build({
  entryPoints: [join(ROOT, 'dist/bin/main.js')],
  outfile: OUT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: EXTERNAL,
  // Each module's import.meta.url becomes the bundle's own URL, which launch.ts passes in;
  // src/lib/code-dir.ts resolves svc's files from it the same way as from dist/<layer>/.
  define: { 'import.meta.url': '__svc_import_meta_url' },
  // import() becomes require(): Node 20 loses a vm.Script's dynamic-import callback when the
  // script comes from a code cache (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so the bundle
  // must not call import(). Every external it loads on demand (argon2, bcrypt) is CommonJS.
  supported: { 'dynamic-import': false },
  // ASCII only, so that the launcher reads it as a one-byte string, without decoding UTF-8;
  // the licence comments (one has a non-ASCII name) go to svc.cjs.LEGAL.txt beside it.
  charset: 'ascii',
  legalComments: 'external',
  // Whitespace only: names stay, so stack traces still name svc's functions.
  minifyWhitespace: true,
  logLevel: 'warning',
});
if (result.warnings.length > 0) {
  process.stderr.write(`bundle: ${result.warnings.length} warning(s): each is a module that may behave differently bundled; fix or explain it here\n`);
  process.exit(1);
}
const bytes = readFileSync(OUT);
if (/\bimport\(/.test(bytes.toString('latin1'))) {
  process.stderr.write(`bundle: ${OUT} calls import(), which fails once it runs from a code cache (see 'supported' above)\n`);
  process.exit(1);
}
const nonAscii = bytes.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1) {
  process.stderr.write(`bundle: byte ${nonAscii} of ${OUT} is not ASCII\n`);
  process.exit(1);
}
