// One gateway in front of two peer gateways (docs/scaling.md, "Peers", "Figures"), on
// loopback: peers B and C are svc gateways, each in front of its own fast upstream
// (bench/upstream.mjs, the same one the floor/direct comparisons use); gateway A lists both
// in its peers.toml. Two figures:
//   throughput: c connections through A (balanced over B and C) against the same load split
//     directly over B and C (c/2 each, at once), alternating, several repetitions, medians.
//     The gateway's share is A's req/s over the direct one's; p50 added is A's p50 less the
//     direct p50 (the mean of B's and C's, which take equal halves of the same load).
//   failover: a steady loop of non-streaming requests through A; B's gateway is SIGKILLed.
//     Reported: requests that failed (expected 0: a request that had not begun answering is
//     retried once on the other replica), how many were retried, the time from the kill to
//     B's breaker open on A (from then on requests go straight to C), the time to the last
//     retried request before that, and the slowest request around the kill.
// Every process runs on this machine, so A's hop takes CPU from B, C and the upstreams:
// the share is a floor for what a gateway on its own host costs.
// Used by bench/run.mjs (the `peers` figures) and bench/peers.mjs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { URLSearchParams } from 'node:url';
import { performance } from 'node:perf_hooks';
import { chatBody, loadRun, median, quantile, quiesce, warmUp } from './load.mjs';
import { freePort, MODELS, startGateway, startUpstream } from './processes.mjs';

const MODEL = MODELS.remote;
const HEALTH = { interval_s: 1, timeout_s: 1, breaker_failures: 3, breaker_backoff_s: 2, breaker_backoff_max_s: 30 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const r2 = (x) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : null);

/** A temp SVC_HOME with `files` (paths under the config root etc/svc). */
function homeWith(files) {
  const root = mkdtempSync(join(tmpdir(), 'svc-bench-peers-'));
  mkdirSync(join(root, 'etc/svc'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'etc/svc', name), text);
  return { home: root, wrapper: '/bin/false', remove: () => rmSync(root, { recursive: true, force: true }) };
}

const upstreamsToml = (port) => `[upstreams.fast]\nbase_url = "http://127.0.0.1:${port}/v1"\nmodels = ["${MODEL}"]\n`;
const peersToml = (peers) => Object.entries(peers).map(([name, url]) => `[peers.${name}]\nurl = "${url}"\n`).join('\n')
  + `\n[health]\n${Object.entries(HEALTH).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`;

async function peersOf(url, refresh = false) {
  const res = await fetch(`${url}/api/peers${refresh ? '/refresh' : ''}`, { method: refresh ? 'POST' : 'GET', headers: { 'x-svc-actor': 'bench' } });
  const body = await res.json();
  if (!Array.isArray(body.peers)) throw new Error(`${refresh ? 'POST /api/peers/refresh' : 'GET /api/peers'}: ${res.status} ${JSON.stringify(body)}`);
  return body.peers;
}

/** Wait until A sees both peers serving the model with their breakers closed. */
async function waitForPeers(url) {
  for (let i = 0; i < 200; i++) {
    const peers = await peersOf(url, true);
    if (peers.length === 2 && peers.every((p) => p.models?.includes(MODEL) && p.breaker.state === 'closed')) return;
    await sleep(100);
  }
  throw new Error(`gateway A never saw both peers serving ${MODEL}: ${JSON.stringify(await peersOf(url))}`);
}

/** c/2 connections to each peer at once: the same load as c through A, split by hand. */
async function directRun(urls, connections, durationS, pids) {
  const half = Math.max(1, Math.floor(connections / 2));
  const runs = await Promise.all(urls.map((url, i) => loadRun({ url: `${url}/v1/chat/completions`, body: chatBody(MODEL), connections: half, durationS, pids: pids[i] })));
  return {
    rps: runs.reduce((s, x) => s + x.rps, 0), p50: (runs[0].p50 + runs[1].p50) / 2, p99: Math.max(runs[0].p99, runs[1].p99),
    errors: runs.reduce((s, x) => s + x.errors + x.non2xx, 0),
  };
}

async function throughput({ a, peers, connections, durationS, reps, pids }) {
  const samples = { direct: [], gateway: [] };
  const settle = () => quiesce([process.pid, ...pids.all]);
  for (let rep = 0; rep < reps; rep++) {
    await settle();
    samples.direct.push(await directRun(peers, connections, durationS, [{ peer: pids.b }, { peer: pids.c }]));
    await settle();
    const g = await loadRun({ url: `${a}/v1/chat/completions`, body: chatBody(MODEL), connections, durationS, pids: { gateway: pids.a } });
    samples.gateway.push({ rps: g.rps, p50: g.p50, p99: g.p99, errors: g.errors + g.non2xx, gateway_cpu: g.cpu.gateway });
  }
  const m = (side, key) => median(samples[side].map((s) => s[key]));
  const direct = { rps: r2(m('direct', 'rps')), p50_ms: r2(m('direct', 'p50')), p99_ms: r2(m('direct', 'p99')), errors: samples.direct.reduce((s, x) => s + x.errors, 0) };
  const gateway = { rps: r2(m('gateway', 'rps')), p50_ms: r2(m('gateway', 'p50')), p99_ms: r2(m('gateway', 'p99')), errors: samples.gateway.reduce((s, x) => s + x.errors, 0), cpu: r2(m('gateway', 'gateway_cpu')) };
  return { connections, duration_s: durationS, reps, direct, gateway, ratio: r2(m('gateway', 'rps') / m('direct', 'rps')), added_p50_ms: r2(m('gateway', 'p50') - m('direct', 'p50')) };
}

/** `loops` closed loops of requests through A until stop(); every request's times, status and target. */
function requestLoops(a, loops) {
  const log = [];
  let running = true;
  const one = async () => {
    while (running) {
      const t0 = Date.now();
      const p0 = performance.now();
      let status = 0;
      let target = null;
      try {
        const res = await fetch(`${a}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(MODEL) });
        target = res.headers.get('x-svc-target');
        await res.arrayBuffer();
        status = res.status;
      } catch {
        // refused or reset: counted as failed (status 0)
      }
      log.push({ t0, t1: t0 + (performance.now() - p0), ms: performance.now() - p0, status, target });
    }
  };
  const done = Promise.all(Array.from({ length: loops }, one));
  return { log, stop: async () => { running = false; await done; } };
}

/** A's dispatch.replica rows from `since` on, oldest first (every page). */
async function replicaRows(a, since) {
  const rows = [];
  let cursor = null;
  for (;;) {
    const q = new URLSearchParams({ action: 'dispatch.replica', since: new Date(since).toISOString(), order: 'asc', limit: '500', ...(cursor && { cursor }) });
    const page = await (await fetch(`${a}/api/activity?${q}`)).json();
    rows.push(...page.items);
    if (!page.next_cursor) return rows;
    cursor = page.next_cursor;
  }
}

async function failover({ a, killB, loops, beforeMs, afterMs }) {
  const run = requestLoops(a, loops);
  await sleep(beforeMs);
  const killedAt = Date.now();
  killB();
  let breakerOpenAt = null;
  while (Date.now() - killedAt < afterMs) {
    if (breakerOpenAt === null) {
      const b = (await peersOf(a)).find((p) => p.target === 'peer:b');
      if (b?.breaker.state === 'open') breakerOpenAt = Date.now();
    }
    await sleep(10);
  }
  await run.stop();
  const before = run.log.filter((x) => x.t1 < killedAt);
  const after = run.log.filter((x) => x.t1 >= killedAt);
  const failed = after.filter((x) => x.status !== 200);
  const firstOk = after.filter((x) => x.t0 >= killedAt && x.status === 200).sort((x, y) => x.t1 - y.t1)[0];
  // Rows of requests retried on C after B failed them: those up to the breaker's opening, and
  // the half-open probes after it (one request each, when a probe is not a health check).
  const retried = (await replicaRows(a, killedAt - 1000)).filter((row) => row.details?.retried_from === 'peer:b');
  const retriedTs = retried.map((row) => Date.parse(row.ts));
  const beforeOpen = breakerOpenAt === null ? retriedTs : retriedTs.filter((t) => t <= breakerOpenAt + 50);
  const around = run.log.filter((x) => x.t1 >= killedAt && x.t0 <= (breakerOpenAt ?? killedAt) + 100);
  const beforeMsSorted = before.map((x) => x.ms).sort((x, y) => x - y);
  return {
    loops, requests: run.log.length, requests_after_kill: after.length,
    targets_before_kill: Object.fromEntries(['peer:b', 'peer:c'].map((t) => [t, before.filter((x) => x.target === t).length])),
    targets_after_kill: Object.fromEntries(['peer:b', 'peer:c'].map((t) => [t, after.filter((x) => x.target === t).length])),
    failed: failed.length, failed_statuses: [...new Set(failed.map((x) => x.status))],
    retried: retried.length, retried_before_breaker_open: beforeOpen.length,
    breaker_open_ms: breakerOpenAt === null ? null : breakerOpenAt - killedAt,
    last_retry_before_open_ms: beforeOpen.length ? Math.max(...beforeOpen) - killedAt : null,
    first_ok_after_kill_ms: firstOk ? r2(firstOk.t1 - killedAt) : null,
    p50_before_kill_ms: r2(quantile(beforeMsSorted, 0.5)), p99_before_kill_ms: r2(quantile(beforeMsSorted, 0.99)),
    slowest_around_kill_ms: around.length ? r2(Math.max(...around.map((x) => x.ms))) : null,
    health: HEALTH,
  };
}

export async function measurePeers({ connections = 16, durationS = 3, reps = 3, loops = 4 } = {}) {
  const [upB, upC] = await Promise.all([startUpstream(await freePort()), startUpstream(await freePort())]);
  const homeB = homeWith({ 'upstreams.toml': upstreamsToml(new URL(upB.url).port) });
  const homeC = homeWith({ 'upstreams.toml': upstreamsToml(new URL(upC.url).port) });
  const started = [];
  const homes = [homeB, homeC];
  try {
    const [b, c] = await Promise.all([startGateway(homeB), startGateway(homeC)]);
    started.push(b, c);
    const homeA = homeWith({ 'peers.toml': peersToml({ b: b.url, c: c.url }) });
    homes.push(homeA);
    const a = await startGateway(homeA);
    started.push(a);
    await waitForPeers(a.url);
    const pids = { a: a.pid, b: b.pid, c: c.pid, all: [a.pid, b.pid, c.pid, upB.pid, upC.pid] };
    await warmUp([`${b.url}/v1/chat/completions`, `${c.url}/v1/chat/completions`, `${a.url}/v1/chat/completions`], chatBody(MODEL), 1);
    const tp = await throughput({ a: a.url, peers: [b.url, c.url], connections, durationS, reps, pids });
    await quiesce([process.pid, ...pids.all]);
    const fo = await failover({ a: a.url, killB: () => b.child.kill('SIGKILL'), loops, beforeMs: 2000, afterMs: 5000 });
    return { bench: 'peers', model: MODEL, peers: 2, throughput: tp, failover: fo };
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await Promise.all([upB.stop(), upC.stop()]);
    for (const h of homes) h.remove();
  }
}
