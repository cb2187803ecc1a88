#!/usr/bin/env node
// `npm run soak`: mixed load on the gateway for ten minutes (streaming and non-streaming
// chat through the remote upstream and the slot, embeddings, and clients that abort part-way),
// sampling the gateway's RSS and open file descriptors every 5 s, then reporting their slope.
// A leak shows as a slope that stays up after the first minute; a flat line is the goal.
//   --minutes N      how long (default 10)
//   --workers N      clients in parallel (default 8; each pauses 0-10 ms between requests)
//   --out FILE       where the JSON goes (default bench/results/soak-<timestamp>.json)
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { anonMb, freePort, makeHome, MODELS, openFds, REPO_ROOT, rssMb, startGateway, startUpstream } from './lib/processes.mjs';
import { chatBody } from './lib/load.mjs';
import { streamBody } from './lib/stream.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const minutes = opt('--minutes', 10);
const workers = opt('--workers', 8);
const outFile = argv.includes('--out') ? argv[argv.indexOf('--out') + 1] : null;
const WARM_UP_S = Math.min(60, minutes * 12); // the first minute (a fifth of a short run) is warm-up
const SAMPLE_EVERY_MS = 5_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (items) => items[Math.floor(Math.random() * items.length)];

/** POST `body` to `path`; `abortAfterMs` destroys the request that long after sending it. */
function call(base, path, body, agent, abortAfterMs) {
  return new Promise((done) => {
    const req = request(`${base}${path}`, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => done({ status: res.statusCode }));
      res.on('error', () => done({ status: res.statusCode, aborted: abortAfterMs !== undefined }));
    });
    req.on('error', (error) => done({ status: 0, aborted: abortAfterMs !== undefined, error: error.message }));
    req.end(body);
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(), abortAfterMs);
  });
}

/** One request of the mix, with its kind (for the counts). */
function oneOfTheMix(base, agent) {
  const model = pick([MODELS.remote, MODELS.slot]);
  const roll = Math.random();
  if (roll < 0.35) return ['chat', call(base, '/v1/chat/completions', chatBody(model), agent)];
  if (roll < 0.6) return ['stream', call(base, '/v1/chat/completions', streamBody(model, 10 + Math.floor(Math.random() * 30), 2 + Math.floor(Math.random() * 10)), agent)];
  if (roll < 0.8) return ['embeddings', call(base, '/v1/embeddings', JSON.stringify({ model: MODELS.remote, input: ['a sentence to embed', 'another one'] }), agent)];
  // Aborts land before the answer, part-way through a stream, or after it ended.
  return ['abort', call(base, '/v1/chat/completions', streamBody(model, 20, 5), agent, Math.floor(Math.random() * 150))];
}

/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const num = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

const upstreamPort = await freePort();
const upstream = await startUpstream(upstreamPort);
const home = await makeHome({ upstreamPort, coldLoadMs: 0 });
const gateway = await startGateway(home);
const counts = {};
const unexpected = [];
const samples = [];
const started = performance.now();
const loadBefore = loadavg().map((l) => Math.round(l * 100) / 100);
try {
  const idleFdsBefore = openFds(gateway.pid);
  const sample = () => samples.push({ t_s: (performance.now() - started) / 1000, rss_mb: rssMb(gateway.pid), anon_mb: anonMb(gateway.pid), fds: openFds(gateway.pid) });
  sample();
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const progress = setInterval(() => process.stderr.write(`soak: ${Math.round((performance.now() - started) / 1000)} s, ${JSON.stringify(counts)}, rss ${samples.at(-1).rss_mb.toFixed(1)} MB, fds ${samples.at(-1).fds}\n`), 60_000);
  const endAt = started + minutes * 60_000;
  await Promise.all(Array.from({ length: workers }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    while (performance.now() < endAt) {
      const [kind, pending] = oneOfTheMix(gateway.url, agent);
      const result = await pending;
      counts[kind] = (counts[kind] ?? 0) + 1;
      if (kind !== 'abort' && result.status !== 200) {
        counts.unexpected = (counts.unexpected ?? 0) + 1;
        if (unexpected.length < 10) unexpected.push({ kind, ...result });
      }
      await sleep(Math.random() * 10);
    }
    agent.destroy();
  }));
  clearInterval(sampler);
  clearInterval(progress);
  await sleep(SAMPLE_EVERY_MS);
  sample();
  const idleFdsAfter = openFds(gateway.pid);

  const steady = samples.filter((s) => s.t_s >= WARM_UP_S);
  // The second half too: V8 may give memory back once early on (a step, not a trend), which
  // tilts a fit over the whole run; a leak shows in both.
  const lastHalf = samples.filter((s) => s.t_s >= (minutes * 60) / 2);
  const perMinute = (key, points = steady) => slope(points.map((s) => [s.t_s / 60, s[key]]));
  const result = {
    meta: { date: new Date().toISOString(), node: process.version, minutes, workers, load_before: loadBefore, load_after: loadavg().map((l) => Math.round(l * 100) / 100) },
    counts, unexpected,
    slope_after_warm_up: { rss_mb_per_min: perMinute('rss_mb'), anon_mb_per_min: perMinute('anon_mb'), fds_per_min: perMinute('fds') },
    slope_second_half: { rss_mb_per_min: perMinute('rss_mb', lastHalf), anon_mb_per_min: perMinute('anon_mb', lastHalf), fds_per_min: perMinute('fds', lastHalf) },
    rss_mb: { first: samples[0].rss_mb, at_warm_up: steady[0]?.rss_mb, max: Math.max(...samples.map((s) => s.rss_mb)), last: samples.at(-1).rss_mb },
    fds: { idle_before: idleFdsBefore, max: Math.max(...samples.map((s) => s.fds)), idle_after: idleFdsAfter },
    samples,
  };
  const file = outFile ?? join(REPO_ROOT, 'bench/results', `soak-${result.meta.date.replace(/[:.]/g, '-')}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const s = result.slope_after_warm_up;
  const total = Object.entries(counts).filter(([k]) => k !== 'unexpected').reduce((n, [, v]) => n + v, 0);
  console.log(`soak: ${minutes} min, ${workers} clients, ${total} requests ${JSON.stringify(counts)}; ${counts.unexpected ?? 0} unexpected answers`);
  console.log(`RSS ${result.rss_mb.first.toFixed(1)} MB at start, ${result.rss_mb.at_warm_up?.toFixed(1)} MB after ${WARM_UP_S} s, max ${result.rss_mb.max.toFixed(1)} MB, ${result.rss_mb.last.toFixed(1)} MB at the end`);
  const h = result.slope_second_half;
  console.log(`slope after the first ${WARM_UP_S} s: RSS ${s.rss_mb_per_min.toFixed(3)} MB/min (anonymous ${s.anon_mb_per_min.toFixed(3)} MB/min), open fds ${s.fds_per_min.toFixed(3)}/min`);
  console.log(`slope over the second half: RSS ${h.rss_mb_per_min.toFixed(3)} MB/min (anonymous ${h.anon_mb_per_min.toFixed(3)} MB/min), open fds ${h.fds_per_min.toFixed(3)}/min`);
  console.log(`open fds: ${result.fds.idle_before} idle before, max ${result.fds.max} under load, ${result.fds.idle_after} idle after`);
  console.log(`results: ${relative(process.cwd(), file)}`);
} finally {
  await gateway.stop();
  await upstream.stop();
  home.remove();
}
