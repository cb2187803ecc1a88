#!/usr/bin/env node
// The memory store's figures on their own (bench/lib/memory.mjs):
//
//   npm run build && node bench/memory.mjs [--items 10000] [--dim 384] [--queries 200]
//
// Prints one JSON line. npm run bench measures the same at 10k items.
import { parseArgs } from 'node:util';
import { measureMemory } from './lib/memory.mjs';

const { values } = parseArgs({ options: { items: { type: 'string', default: '10000' }, dim: { type: 'string', default: '384' }, queries: { type: 'string', default: '200' } } });
console.log(JSON.stringify(await measureMemory({ items: Number(values.items), dim: Number(values.dim), queries: Number(values.queries) })));
