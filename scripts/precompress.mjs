#!/usr/bin/env node
// Writes a .gz and a .br copy next to each compressible file of the dashboard's build
// (dist/web, or the folder given as the one argument), at build time: the gateway then sends
// the copy a client accepts (src/server/routes/dashboard.ts) and never compresses per request.
// Run by `npm run build` after `vite build`. Both at their highest levels: this runs once.
//
// A copy that would not be smaller than its file is not written (the gateway then sends the
// file as it is), and copies left from an earlier build are removed first, so none is stale.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { promisify } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The same list as COMPRESSIBLE in src/server/dashboard-files.ts: images and fonts are compressed already. */
const COMPRESSIBLE = /\.(html|js|mjs|css|json|map|svg|txt|webmanifest|ico|wasm)$/i;

const compressors = {
  br: (bytes) => promisify(brotliCompress)(bytes, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
  }),
  gz: (bytes) => promisify(gzip)(bytes, { level: constants.Z_BEST_COMPRESSION }),
};

async function files(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

export async function precompress(dir) {
  const all = await files(dir);
  await Promise.all(all.filter((path) => /\.(gz|br)$/.test(path)).map((path) => rm(path)));
  let written = 0;
  let before = 0;
  let after = 0;
  for (const path of all.filter((p) => COMPRESSIBLE.test(p))) {
    const bytes = await readFile(path);
    for (const [ext, compress] of Object.entries(compressors)) {
      const packed = await compress(bytes);
      if (packed.length >= bytes.length) continue;
      await writeFile(`${path}.${ext}`, packed);
      written += 1;
      if (ext === 'br') {
        before += bytes.length;
        after += packed.length;
      }
    }
  }
  return { written, before, after };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? join(ROOT, 'dist', 'web');
  try {
    const { written, before, after } = await precompress(dir);
    process.stdout.write(`precompress: ${written} copies in ${dir} (brotli: ${before} → ${after} bytes)\n`);
  } catch (error) {
    process.stderr.write(`precompress: ${dir}: ${error.message}\n`);
    process.exit(1);
  }
}
