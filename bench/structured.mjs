#!/usr/bin/env node
// What a JSON schema costs on the built-in engine (bench/lib/structured.mjs), on its own:
//
//   npm run build && node bench/structured.mjs [--runs 7] [--tokens 256]
//
// Prints one JSON line: both medians, their ratio and every run. npm run bench measures the same.
import { parseArgs } from 'node:util';
import { measureStructured } from './lib/structured.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' }, tokens: { type: 'string', default: '256' } } });
console.log(JSON.stringify(await measureStructured({ runs: Number(values.runs), maxTokens: Number(values.tokens) })));
