#!/usr/bin/env node
// Write the tiny llama-architecture test model (DESIGN.md, "A real model with no download"),
// or with --reranker its reranking variant (qwen3 with a classifier head).
// Usage: node scripts/make-tiny-model.mjs <out.gguf> [--seed N] [--reranker]   (run `npm run build` first)
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const USAGE = 'usage: node scripts/make-tiny-model.mjs <out.gguf> [--seed N] [--reranker]';
const built = fileURLToPath(new URL('../dist/engines/gguf/tiny-model.js', import.meta.url));

function parseArgs(argv) {
  const args = { out: undefined, seed: undefined, reranker: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    if (arg === '--reranker') {
      args.reranker = true;
      continue;
    }
    if (arg === '--seed') {
      args.seed = Number(argv[++i]);
      if (!Number.isInteger(args.seed) || args.seed < 0) throw new Error(`--seed needs a non-negative integer\n${USAGE}`);
    } else if (args.out === undefined) {
      args.out = resolve(arg);
    } else {
      throw new Error(`unexpected argument: ${arg}\n${USAGE}`);
    }
  }
  if (args.out === undefined) throw new Error(USAGE);
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.help) {
    console.log(USAGE);
    return;
  }
  if (!existsSync(built)) throw new Error(`${built} is missing; run \`npm run build\` first`);
  const { writeTinyModel } = await import(pathToFileURL(built).href);
  const { TINY_MODEL_ID, TINY_RERANKER_ID } = await import(new URL('../dist/protocol/builtin-models.js', import.meta.url).href);
  const options = { ...(args.seed !== undefined && { seed: args.seed }), ...(args.reranker && { variant: 'reranker' }) };
  const size = await writeTinyModel(args.out, options);
  console.log(`${args.out}\t${size} bytes\t(${args.reranker ? TINY_RERANKER_ID : TINY_MODEL_ID})`);
}

main().catch((error) => {
  console.error(`make-tiny-model: ${error.message}`);
  process.exitCode = 1;
});
