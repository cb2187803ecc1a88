#!/usr/bin/env node
// The memory store's figures on their own (bench/lib/memory.mjs, bench/lib/memory-scale.mjs):
//
//   npm run build && node bench/memory.mjs [--items 10000] [--dim 384] [--queries 200]
//   node bench/memory.mjs --bulk --items 100000 [--batch 500] [--queries 100]
//   [--vectors embedding-like|uniform] with either (bench/lib/vectors.mjs)
//   node bench/memory.mjs --gateway-rss
//
// Prints one JSON line. The default writes item by item through the store (as the add route
// does, without the model); --bulk writes in batches of --batch rows (100k items one by one
// take most of an hour here); --gateway-rss measures the gateway's RSS before and after its
// first memory request, and the database process's. npm run bench measures the first at 10k.
import { parseArgs } from 'node:util';
import { measureMemory } from './lib/memory.mjs';
import { measureGatewayMemoryRss, measureMemoryBulk } from './lib/memory-scale.mjs';

const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '10000' }, dim: { type: 'string', default: '384' }, queries: { type: 'string' }, batch: { type: 'string', default: '500' },
    bulk: { type: 'boolean', default: false }, 'gateway-rss': { type: 'boolean', default: false }, vectors: { type: 'string', default: 'embedding-like' },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);
const result = values['gateway-rss']
  ? await measureGatewayMemoryRss()
  : values.bulk
    ? await measureMemoryBulk({ items: Number(values.items), dim: Number(values.dim), queries: Number(values.queries ?? 100), batch: Number(values.batch), vectors: values.vectors, log })
    : await measureMemory({ items: Number(values.items), dim: Number(values.dim), queries: Number(values.queries ?? 200), vectors: values.vectors });
console.log(JSON.stringify(result));
