#!/usr/bin/env node
// What a round of the omni tool loop adds over the model's own time (bench/lib/omni.mjs), on its own:
//
//   npm run build && node bench/omni.mjs [--runs 30]
//
// Prints one JSON line: the medians, what a round adds, and the ratio. npm run bench measures the same.
import { parseArgs } from 'node:util';
import { measureOmni } from './lib/omni.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' } } });
console.log(JSON.stringify(await measureOmni({ runs: Number(values.runs) })));
