#!/usr/bin/env node
// One gateway in front of two peer gateways against the two peers hit directly, and the
// failover time when a peer is SIGKILLed, on its own (bench/lib/peers.mjs):
//
//   npm run build && node bench/peers.mjs [--connections 16] [--duration 3] [--reps 3] [--out FILE]
//
// Prints one JSON object and writes it to bench/results/peers-<timestamp>.json (or --out).
// npm run bench measures the same (its `peers` figures).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { measurePeers } from './lib/peers.mjs';
import { REPO_ROOT } from './lib/processes.mjs';

const { values } = parseArgs({ options: { connections: { type: 'string', default: '16' }, duration: { type: 'string', default: '3' }, reps: { type: 'string', default: '3' }, out: { type: 'string' } } });
const date = new Date().toISOString();
const meta = { date, node: process.version, cpus: cpus().length, load_before: loadavg().map((l) => Math.round(l * 100) / 100) };
const result = await measurePeers({ connections: Number(values.connections), durationS: Number(values.duration), reps: Number(values.reps) });
meta.load_after = loadavg().map((l) => Math.round(l * 100) / 100);
const out = { meta, ...result };
const file = values.out ?? join(REPO_ROOT, 'bench/results', `peers-${date.replace(/[:.]/g, '-')}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
