#!/usr/bin/env node
// `node bench/profile.mjs`: where the gateway's time goes under load. Starts the bench's
// upstream and the gateway (with --cpu-prof), drives c=64 non-streaming chat at the remote
// route for --duration seconds, stops the gateway so V8 writes its profile, and prints the
// self time by function and by package (docs/performance.md, "Profiling").
//   --duration S   seconds of load (default 5)
//   --route R      remote | slot | stream (default remote)
//   --top N        rows per table (default 25)
//   --keep DIR     keep the .cpuprofile in DIR (open it in Chrome DevTools)
//   --json FILE    also write {requests, samples, byFunction} to FILE (to compare two runs)
//   --floor        profile the floor proxy (bench/floor-proxy.mjs) instead, for comparison
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatBody, loadRun, warmUp } from './lib/load.mjs';
import { freePort, makeHome, MODELS, REPO_ROOT, startFloorProxy, startGateway, startUpstream } from './lib/processes.mjs';
import { streamRun } from './lib/stream.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const durationS = Number(opt('--duration', '5'));
const route = opt('--route', 'remote');
const top = Number(opt('--top', '25'));
const keep = opt('--keep', null);
const floorOnly = argv.includes('--floor');
const jsonOut = opt('--json', null);

/** What the stop takes (SIGTERM to exit), left out of the window; as much again off its start. */
const STOP_MARGIN_US = 400_000;

const profDir = mkdtempSync(join(tmpdir(), 'svc-prof-'));
const upstream = await startUpstream(await freePort());
const home = await makeHome({ upstreamPort: Number(new URL(upstream.url).port), coldLoadMs: 300 });
let requests = NaN;
const profArgs = ['--cpu-prof', `--cpu-prof-dir=${profDir}`];
const gateway = floorOnly ? await startFloorProxy(await freePort(), upstream.url, profArgs) : await startGateway(home, profArgs);
try {
  const model = route === 'slot' ? MODELS.slot : MODELS.remote;
  const url = `${gateway.url}/v1/chat/completions`;
  await warmUp([url], chatBody(model));
  if (route === 'stream') {
    const until = Date.now() + durationS * 1000;
    while (Date.now() < until) await streamRun({ url, model, chunks: 16, intervalMs: 5, count: 64, concurrency: 16 });
  } else {
    const result = await loadRun({ url, body: chatBody(model), connections: 64, durationS, pids: { gateway: gateway.pid } });
    requests = result.rps * durationS;
    process.stderr.write(`profile: ${Math.round(result.rps)} req/s, p50 ${result.p50.toFixed(3)} ms\n`);
  }
} finally {
  await gateway.stop();
  await upstream.stop();
  home.remove();
}

const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no profile written in ${profDir}`);
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
if (keep) cpSync(join(profDir, file), join(keep, file));
rmSync(profDir, { recursive: true, force: true });

// Self time per node: samples x interval; nodes aggregated by function and by package.
// Only the samples of the load itself: the last --duration seconds before the stop (start-up,
// warm-up and shutdown left out), so that per-request figures are the hot path's alone.
const stamps = [];
let clock = profile.startTime;
for (const delta of profile.timeDeltas) stamps.push((clock += delta));
const windowEnd = profile.endTime - STOP_MARGIN_US;
const windowStart = windowEnd - durationS * 1e6 + STOP_MARGIN_US;
const hits = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  if (stamps[i] < windowStart || stamps[i] > windowEnd) return;
  hits.set(id, (hits.get(id) ?? 0) + 1);
  total++;
});
const byFunction = new Map();
const byPackage = new Map();
const packageOf = (url) => {
  if (!url) return '(native/V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 13).split('/').slice(0, url.slice(nm + 13).startsWith('@') ? 2 : 1).join('/');
  if (url.startsWith('node:')) return 'node core';
  if (url.includes(`${REPO_ROOT}/dist/`)) return `svc ${url.slice(url.indexOf('/dist/') + 6)}`;
  return url;
};
for (const node of profile.nodes) {
  const n = hits.get(node.id) ?? 0;
  if (n === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'}  ${url ? `${url.replace(`${REPO_ROOT}/`, '').replace(/^.*node_modules\//, '')}:${lineNumber + 1}` : ''}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + n);
  const pkg = packageOf(url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + n);
}
const table = (title, map) => {
  console.log(`\n${title}`);
  for (const [key, n] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${((n / total) * 100).toFixed(1).padStart(6)}%  ${key}`);
};
console.log(`${total} samples`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ requests, samples: total, interval_us: (windowEnd - windowStart) / total, byFunction: Object.fromEntries(byFunction), byPackage: Object.fromEntries(byPackage) }));
table('self time by package (svc: by file)', byPackage);
table('self time by function', byFunction);
