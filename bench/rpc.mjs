#!/usr/bin/env node
// The tiny model's token rate split over two llama.cpp RPC workers against one host, on its
// own (bench/lib/rpc.mjs):
//
//   npm run build && node bench/rpc.mjs [--runs 7]
//
// Prints one JSON object. npm run bench measures the same.
import { parseArgs } from 'node:util';
import { measureRpc } from './lib/rpc.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
console.log(JSON.stringify(await measureRpc({ runs: Number(values.runs) }), null, 2));
