#!/usr/bin/env node
// `npm run bench`: the gateway's cost, measured against the same upstream reached directly
// (docs/performance.md says how and why). Starts the fast upstream and the gateway as their
// own processes, drives them from this one (autocannon and a node:http stream client),
// prints a table and a line of ratios, and writes bench/results/<timestamp>.json.
//   --quick            1 repetition of 1 s runs (a smoke run while developing; noisy)
//   --reps N           repetitions whose medians are reported (default 3)
//   --duration S       seconds per load run (default 3)
//   --streams N        streams held at once (default 1000)
//   --hostile-rounds N rounds of hostile bodies on every /v1 route, 2 of them warm-up (default 5; 3 with --quick)
//   --fuzz-requests N  hostile requests over every route (bench/fuzz.mjs; default 8000, 1600 with --quick; 0 leaves it out)
//   --out FILE         where the JSON goes (default bench/results/<timestamp>.json)
//   --auth-only        only what auth mode adds to /v1 (c=1 and c=64), printed; nothing written
//   --pull-only        a model pull beside curl on the same file, and the bytes a resume re-fetches; printed
//   --stack-only       a stack apply of three slots beside loading the same three engines directly; printed
//   --front-door-only  the admission checks' time per request in-process, and the added p50 at c=1; printed
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { execFileSync } from 'node:child_process';
import { authOverhead } from './lib/auth.mjs';
import { addedAtC1, frontDoorChecks } from './lib/front-door.mjs';
import { pullBeside } from './lib/pull.mjs';
import { coldLoads, directColdLoads, gatewayStartup } from './lib/cold.mjs';
import { hostileRss } from './lib/hostile.mjs';
import { FUZZ_REQUESTS, measureFuzz } from './fuzz.mjs';
import { chatBody, loadRun, median, quiesce, warmUp } from './lib/load.mjs';
import { anonMb, freePort, makeHome, MODELS, portkeyHeaders, REPO_ROOT, rssMb, startFloorProxy, startGateway, startPortkey, startUpstream } from './lib/processes.mjs';
import { checkTargets, render, summaryLine } from './lib/report.mjs';
import { holdStreams, streamRun } from './lib/stream.mjs';
import { measureStructured } from './lib/structured.mjs';
import { measureOmni } from './lib/omni.mjs';
import { measureDashboard } from './lib/dashboard.mjs';
import { measureMemory } from './lib/memory.mjs';
import { measureRpc } from './lib/rpc.mjs';
import { measurePeers } from './lib/peers.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const quick = argv.includes('--quick');
const options = {
  reps: opt('--reps', quick ? 1 : 3), durationS: opt('--duration', quick ? 1 : 3),
  streams: opt('--streams', 1000), holdChunks: 20, holdIntervalMs: 200, streamChunks: 16, streamIntervalMs: 5, coldLoadMs: 300, coldLoads: quick ? 2 : 5,
  hostileRounds: opt('--hostile-rounds', quick ? 3 : 5),
  fuzzRequests: opt('--fuzz-requests', quick ? 1_600 : FUZZ_REQUESTS),
  sseThroughputStreams: quick ? 160 : 480,
};
const outFile = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null;
const round = (load) => load.map((l) => Math.round(l * 100) / 100);
const log = (line) => process.stderr.write(`bench: ${line}\n`);

/** The median of every numeric field of a list of like-shaped results (CPU shares too). */
function medianOf(results) {
  const out = {};
  for (const key of Object.keys(results[0])) {
    const values = results.map((r) => r[key]);
    if (typeof values[0] === 'number') out[key] = median(values);
    else if (key === 'cpu') out.cpu = medianOf(values);
  }
  return out;
}

const meta = { date: new Date().toISOString(), node: process.version, cpus: cpus().length, load_before: round(loadavg()), options };
try {
  meta.commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
} catch {
  meta.commit = null;
}

if (argv.includes('--stack-only')) {
  const { stackApplyBeside } = await import('./lib/stack.mjs');
  const result = await stackApplyBeside({ reps: quick ? 2 : 5 });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => process.exit(0));
}
if (argv.includes('--pull-only')) {
  const result = await pullBeside({ reps: options.reps, ...(quick && { bytes: 64 * 1024 * 1024 }) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`, () => process.exit(0));
}
const upstreamPort = await freePort();
const upstream = await startUpstream(upstreamPort);
const home = await makeHome({ upstreamPort, coldLoadMs: options.coldLoadMs });
if (argv.includes('--auth-only')) {
  const open = await startGateway(home);
  try {
    log('auth mode beside default mode');
    const auth = await authOverhead({ openUrl: open.url, openPid: open.pid, upstreamPort, upstreamPid: upstream.pid, reps: options.reps + 2, durationS: options.durationS });
    console.log(JSON.stringify(auth, null, 2));
  } finally {
    await open.stop();
    await upstream.stop();
    home.remove();
  }
  process.exit(0);
}
if (argv.includes('--front-door-only')) {
  const gw = await startGateway(home);
  try {
    log('the front door\'s checks, in-process');
    const checks = await frontDoorChecks();
    log('added p50 at c=1, the gateway against the upstream directly');
    const body = chatBody(MODELS.remote);
    const directUrl = `${upstream.url}/v1/chat/completions`;
    const gatewayUrl = `${gw.url}/v1/chat/completions`;
    await warmUp([directUrl, gatewayUrl], body, 1, () => ({}));
    const c1 = await addedAtC1({ directUrl, gatewayUrl, body, reps: options.reps + 2, durationS: options.durationS });
    console.log(JSON.stringify({ meta: { ...meta, load_after: round(loadavg()) }, front_door: checks, c1 }, null, 2));
  } finally {
    await gw.stop();
    await upstream.stop();
    home.remove();
  }
  process.exit(0);
}
if (argv.includes('--startup-only')) {
  // Start-up, idle RSS and cold slots alone (about a minute), for work on those figures.
  try {
    const startup = await gatewayStartup(home, 5);
    const gw = await startGateway(home);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = { gateway_mb: rssMb(gw.pid), gateway_anon_mb: anonMb(gw.pid), bare_node_mb: moduleCost(null).mb };
    const slotBody = chatBody(MODELS.slot);
    const first = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: slotBody });
    if (first.status !== 200) throw new Error(`the slot did not answer: ${first.status}`);
    await first.arrayBuffer();
    const warm = await loadRun({ url: `${home.slotUrl(MODELS.slot)}/v1/chat/completions`, body: slotBody, connections: 1, durationS: 2 });
    const cold = await coldLoads(gw.url, 7, warm.p50, await directColdLoads(home, 7, options.coldLoadMs));
    await gw.stop();
    process.stdout.write(`${JSON.stringify({ startup, idle, warm_p50_ms: warm.p50, cold_slot: cold }, null, 2)}\n`, () => process.exit(0));
  } finally {
    await upstream.stop();
    home.remove();
  }
}
log('gateway start-up');
const startup = await gatewayStartup(home, quick ? 2 : 5);
const gateway = await startGateway(home);
const floor = await startFloorProxy(await freePort(), upstream.url);
const portkey = await startPortkey(await freePort());
const peerHeaders = portkeyHeaders(upstream.url);
/** Headers a side's requests carry: Portkey's name the upstream; the others need none. */
const headersFor = (url) => (url.startsWith(portkey.url) ? peerHeaders : {});
const rss = { idle_start_mb: NaN, idle_start_anon_mb: NaN, idle_after_load_mb: NaN, idle_after_load_anon_mb: NaN, peak_mb: 0, peak_streams_mb: 0 };
await new Promise((r) => setTimeout(r, 1000));
rss.idle_start_mb = rssMb(gateway.pid);
rss.idle_start_anon_mb = anonMb(gateway.pid);
rss.floor_idle_start_mb = rssMb(floor.pid);
rss.bare_node_mb = moduleCost(null).mb;
// What each runtime dependency adds to a bare node's RSS, and the time its import takes,
// when imported alone (docs/performance.md, "What each import costs").
const IMPORTS = ['fastify', 'undici', 'zod', 'prom-client', 'better-sqlite3', 'smol-toml', 'commander', './dist/server/serve.js', './dist/cli/program.js'];
const importCosts = Object.fromEntries(IMPORTS.map((m) => [m, moduleCost(m)]));
rss.dependency_mb = Object.fromEntries(IMPORTS.map((m) => [m, importCosts[m].mb - rss.bare_node_mb]));
startup.import_ms = Object.fromEntries(IMPORTS.map((m) => [m, importCosts[m].ms]));
const sampler = setInterval(() => (rss.peak_mb = Math.max(rss.peak_mb, rssMb(gateway.pid))), 100);

try {
  // The warm slot's engine starts on its first request; after that it is reached directly too.
  const warm = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(MODELS.slot) });
  if (warm.status !== 200) throw new Error(`the slot did not answer: ${warm.status} ${await warm.text()}`);
  const targets = {
    remote: { model: MODELS.remote, direct: `${upstream.url}/v1/chat/completions`, gateway: `${gateway.url}/v1/chat/completions`, floor: `${floor.url}/v1/chat/completions`, portkey: `${portkey.url}/v1/chat/completions`, enginePid: upstream.pid },
    slot: { model: MODELS.slot, direct: `${home.slotUrl(MODELS.slot)}/v1/chat/completions`, gateway: `${gateway.url}/v1/chat/completions`, enginePid: await slotPid(gateway.url, MODELS.slot) },
  };
  log('warm-up');
  for (const t of Object.values(targets)) await warmUp([t.direct, t.gateway, ...(t.floor ? [t.floor, t.portkey] : [])], chatBody(t.model), 1, headersFor);

  // Before each run, every process of the bench (this one too) idle again: run back to back,
  // the second of two proxies spent up to a fifth more CPU per request, and the gateway
  // always comes right after Portkey (docs/performance.md, "Settling between runs").
  const settle = () => quiesce([process.pid, upstream.pid, gateway.pid, floor.pid, portkey.pid, targets.slot.enginePid]);
  // Runs of one repetition are interleaved (direct, gateway, direct, ...) so that a noisy
  // neighbour on this machine hits both sides alike; medians over the repetitions.
  const latency = {};
  const runs = [];
  for (const route of Object.keys(targets)) for (const c of [1, 16, 64]) runs.push({ route, c });
  const raw = new Map();
  for (let rep = 0; rep < options.reps; rep++) {
    log(`non-streaming load, repetition ${rep + 1}/${options.reps}`);
    for (const { route, c } of runs) {
      const t = targets[route];
      // The floor proxy (bench/floor-proxy.mjs) and Portkey run beside the remote runs only.
      const sides = t.floor ? ['direct', 'floor', 'portkey', 'gateway'] : ['direct', 'gateway'];
      for (const side of sides) {
        const proxyPid = { gateway: gateway.pid, floor: floor.pid, portkey: portkey.pid }[side];
        await settle();
        const result = await loadRun({
          url: t[side], body: chatBody(t.model), connections: c, durationS: options.durationS, headers: headersFor(t[side]),
          pids: proxyPid ? { gateway: proxyPid, upstream: t.enginePid } : { upstream: t.enginePid },
        });
        const key = `${route}/c${c}/${side}`;
        raw.set(key, [...(raw.get(key) ?? []), result]);
      }
    }
  }
  for (const [key, results] of raw) {
    const [route, c, side] = key.split('/');
    ((latency[route] ??= {})[c] ??= {})[side] = medianOf(results);
  }
  const throughput = {};
  for (const route of Object.keys(targets)) {
    const { direct, gateway: g, floor: fl, portkey: pk } = latency[route].c64;
    throughput[route] = {
      direct_rps: direct.rps, gateway_rps: g.rps, ratio: g.rps / direct.rps,
      ...(fl && { floor_rps: fl.rps, floor_ratio: fl.rps / direct.rps, of_floor: g.rps / fl.rps }),
      ...(pk && { portkey_rps: pk.rps, portkey_errors: pk.errors + pk.non2xx, over_portkey: g.rps / pk.rps }),
    };
  }

  log('streaming');
  const streaming = {};
  const streamRaw = new Map();
  for (let rep = 0; rep < options.reps; rep++) {
    for (const route of Object.keys(targets)) {
      for (const c of [1, 16]) {
        for (const side of targets[route].floor ? ['direct', 'floor', 'portkey', 'gateway'] : ['direct', 'gateway']) {
          const url = targets[route][side];
          await settle();
          const result = await streamRun({ url, model: targets[route].model, chunks: options.streamChunks, intervalMs: options.streamIntervalMs, count: c === 1 ? 40 : 64, concurrency: c, headers: headersFor(url) });
          const key = `${route}/c${c}/${side}`;
          streamRaw.set(key, [...(streamRaw.get(key) ?? []), result]);
        }
      }
    }
  }
  for (const [key, results] of streamRaw) {
    const [route, c, side] = key.split('/');
    const m = medianOf(results);
    // Counts add up over the repetitions; the worst coalescing seen is kept, not the median.
    for (const k of ['streams', 'failed', 'tokens', 'token_reads']) m[k] = results.reduce((n, r) => n + r[k], 0);
    m.max_tokens_per_read = Math.max(...results.map((r) => r.max_tokens_per_read));
    ((streaming[route] ??= {})[c] ??= {})[side] = m;
  }

  // SSE throughput: 16 chunks written back to back (no pacing), 16 streams at a time; whole
  // streams answered per second. Failed streams (Portkey's, say) do not count.
  log('SSE throughput');
  const sseRaw = new Map();
  for (let rep = 0; rep < options.reps; rep++) {
    for (const route of Object.keys(targets)) {
      for (const side of targets[route].floor ? ['direct', 'floor', 'portkey', 'gateway'] : ['direct', 'gateway']) {
        const url = targets[route][side];
        await settle();
        const result = await streamRun({ url, model: targets[route].model, chunks: options.streamChunks, intervalMs: 0, count: options.sseThroughputStreams, concurrency: 16, headers: headersFor(url) });
        const key = `${route}/${side}`;
        sseRaw.set(key, [...(sseRaw.get(key) ?? []), result]);
      }
    }
  }
  const sseThroughput = {};
  for (const [key, results] of sseRaw) {
    const [route, side] = key.split('/');
    (sseThroughput[route] ??= {})[side] = { streams_per_s: median(results.map((r) => r.streams_per_s)), failed: results.reduce((n, r) => n + r.failed, 0), streams: results.reduce((n, r) => n + r.streams, 0) };
  }

  log(`${options.streams} streams at once`);
  const peakBefore = rss.peak_mb;
  rss.peak_mb = 0;
  const held = await holdStreams({
    url: targets.remote.gateway, model: targets.remote.model, chunks: options.holdChunks, intervalMs: options.holdIntervalMs, count: options.streams,
    onTick: () => (rss.peak_mb = Math.max(rss.peak_mb, rssMb(gateway.pid))),
  });
  rss.peak_streams_mb = rss.peak_mb;
  rss.peak_mb = Math.max(peakBefore, rss.peak_mb);

  log('auth mode beside default mode');
  const auth = await authOverhead({ openUrl: gateway.url, openPid: gateway.pid, upstreamPort, upstreamPid: upstream.pid, reps: options.reps + 2, durationS: options.durationS });

  log('the front door\'s checks, in-process');
  const frontDoor = await frontDoorChecks();

  log('cold slot loads');
  const cold = await coldLoads(gateway.url, options.coldLoads, latency.slot.c1.direct.p50, await directColdLoads(home, options.coldLoads, options.coldLoadMs));
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 5000));
  rss.idle_after_load_mb = rssMb(gateway.pid);
  rss.idle_after_load_anon_mb = anonMb(gateway.pid);
  rss.floor_after_load_mb = rssMb(floor.pid);

  // Last: the 8 MiB bodies grow the heap, which V8 keeps, so every RSS figure above comes first.
  log('hostile input');
  const hostile = await hostileRss(gateway.url, gateway.pid, { model: MODELS.remote, rounds: options.hostileRounds });

  // Its own gateway, after this one's figures: what a JSON schema costs the built-in engine.
  log('built-in engine with and without a JSON schema');
  const structured = await measureStructured();
  log('the omni tool loop against the same model calls made directly');
  const omni = await measureOmni({ runs: quick ? 10 : 30 });
  log('the dashboard\'s first load in Chromium');
  const dashboard = await measureDashboard();
  log('the memory store on the embedded pgvector engine (10k items, 384-dim)');
  const memory = await measureMemory({ items: quick ? 1000 : 10_000, queries: quick ? 50 : 200 });
  log('the tiny model split over two llama.cpp RPC workers against one host');
  const rpc = await measureRpc({ runs: quick ? 3 : 7 });
  log('one gateway in front of two peer gateways against the two hit directly, and the failover when one dies');
  const peers = await measurePeers({ connections: 16, durationS: options.durationS, reps: options.reps });
  // Its own gateways (test/fuzz.test.ts), last: hostile requests over every route of the access table.
  let fuzz = null;
  if (options.fuzzRequests > 0) {
    log(`the fuzzer: ${options.fuzzRequests} hostile requests over every route, default and auth mode`);
    fuzz = await measureFuzz({ requests: options.fuzzRequests });
  }

  meta.load_after = round(loadavg());
  const result = { meta, startup, rss, latency, throughput, streaming, sse_throughput: sseThroughput, streams_held: held, cold_slot: cold, hostile_input: hostile, auth, front_door: frontDoor, structured, omni, dashboard, memory, rpc, peers, fuzz };
  result.targets = checkTargets(result);
  const file = outFile ?? join(REPO_ROOT, 'bench/results', `${meta.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(render(result));
  console.log('');
  console.log(summaryLine(result));
  console.log(`results: ${relative(process.cwd(), file)}`);
} finally {
  clearInterval(sampler);
  await gateway.stop();
  await floor.stop();
  await portkey.stop();
  await upstream.stop();
  home.remove();
}

/** RSS (MB) of a fresh node that imported `specifier` (null: nothing), and the import's time (ms); medians of 3. */
function moduleCost(specifier) {
  const code = `const t = performance.now(); ${specifier ? `await import(${JSON.stringify(specifier)});` : ''}const ms = performance.now() - t; process.stdout.write(JSON.stringify({ rss: process.memoryUsage().rss, ms }))`;
  const runs = [0, 1, 2].map(() => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: REPO_ROOT, encoding: 'utf8' })));
  return { mb: median(runs.map((r) => r.rss / 1048576)), ms: median(runs.map((r) => r.ms)) };
}

/** The pid of a slot's engine, from GET /api/slots/<name>. */
async function slotPid(url, name) {
  const view = await (await fetch(`${url}/api/slots/${name}`)).json();
  const pid = view.pid ?? view.slot?.pid;
  if (!Number.isInteger(pid)) throw new Error(`no pid for slot ${name}: ${JSON.stringify(view).slice(0, 300)}`);
  return pid;
}
