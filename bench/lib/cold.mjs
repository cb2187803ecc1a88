// Start-up measures: the gateway from process start to answering, and a cold slot from the
// request that wakes it to its answer, less the engine's own time to become ready (the
// engine stamps when its process started and when it turned ready on every answer).
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { freePort, MODELS, startGateway } from './processes.mjs';
import { chatBody } from './load.mjs';

const epochNow = () => performance.timeOrigin + performance.now();

/** `node -e 0` from spawn to exit: the floor under any Node process's start-up here. */
export function bareNodeMs() {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - started;
}

/**
 * Start and stop the gateway `times` times on `home`; medians of both start-up measures. A
 * build's first start has no code cache (src/bin/launch.ts): it saves one 3 s after listening,
 * and every start after it compiles from it. The first start is timed on its own, then starts
 * with the cache, then without it (SVC_CODE_CACHE=0) and from the module tree (SVC_BUNDLE=0).
 */
export async function gatewayStartup(home, times) {
  const first = await startGateway(home, [], { SVC_TRACE_STARTUP: '1' });
  for (const until = Date.now() + 15_000; !/code cache (saved|could not)/.test(first.output()); ) {
    if (Date.now() > until) throw new Error(`the gateway saved no code cache:\n${first.output()}`);
    await new Promise((done) => setTimeout(done, 50));
  }
  await first.stop();
  const startsWith = async (env) => {
    const runs = [];
    for (let i = 0; i < times; i++) {
      const gw = await startGateway(home, [], env);
      runs.push(gw.startup);
      await gw.stop();
    }
    return runs;
  };
  const runs = await startsWith({});
  const uncached = await startsWith({ SVC_CODE_CACHE: '0' });
  const tree = await startsWith({ SVC_BUNDLE: '0' });
  const bare = [];
  for (let i = 0; i < times; i++) bare.push(bareNodeMs());
  return {
    listening_ms: median(runs.map((r) => r.listening_ms)),
    health_ms: median(runs.map((r) => r.health_ms)),
    first_start_listening_ms: first.startup.listening_ms,
    no_code_cache_listening_ms: median(uncached.map((r) => r.listening_ms)),
    module_tree_listening_ms: median(tree.map((r) => r.listening_ms)),
    bare_node_ms: median(bare),
    runs,
  };
}

/** The leanest client: node:http on a new connection, the body read whole; for the engine started by hand. */
function postLean(url, path, body) {
  return new Promise((done, fail) => {
    const req = request(`${url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.once('end', () => done({ status: res.statusCode, headers: { get: (name) => res.headers[name] } }));
    });
    req.once('error', fail);
    req.end(body);
  });
}

async function post(url, path, body) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
  return response;
}

/**
 * The floor of a cold start: the same engine started by hand, as a script that knows its
 * command would: spawn it, read its log (stderr) for the ready line, send the chat request at
 * once, with the leanest client (node:http; the requests through the gateway use fetch, whose
 * own cost is thus counted as the gateway's).
 * Per load: total_ms (spawn -> answer read), engine_ms (exec -> ready, as below), and
 * after_ready_ms (ready -> answer: noticing the line, the engine's first answer).
 */
export async function directColdLoads(home, times, coldLoadMs) {
  const loads = [];
  for (let i = 0; i < times; i++) {
    const port = await freePort();
    const spawnedAt = epochNow();
    const child = spawn(home.wrapper, ['--port', String(port), '--alias', MODELS.cold, '--load-ms', String(coldLoadMs)], { stdio: ['ignore', 'ignore', 'pipe'] });
    const exited = new Promise((done) => child.once('exit', done));
    await new Promise((done, fail) => {
      let log = '';
      child.stderr.on('data', (chunk) => {
        log += chunk;
        if (/model loaded/.test(log)) done();
      });
      void exited.then((code) => fail(new Error(`the engine exited (${code}) before it was ready:\n${log}`)));
    });
    const response = await postLean(`http://127.0.0.1:${port}`, '/v1/chat/completions', chatBody(MODELS.cold));
    const doneAt = epochNow();
    if (response.status !== 200) throw new Error(`the engine answered ${response.status}`);
    const execAt = Number(response.headers.get('x-engine-exec-at'));
    const readyAt = Number(response.headers.get('x-engine-ready-at'));
    loads.push({ total_ms: doneAt - spawnedAt, engine_ms: readyAt - execAt, after_ready_ms: doneAt - readyAt });
    child.kill('SIGTERM');
    await exited;
  }
  const med = (key) => median(loads.map((l) => l[key]));
  return { total_ms: med('total_ms'), engine_ms: med('engine_ms'), after_ready_ms: med('after_ready_ms'), loads };
}

/**
 * Unload the cold slot, then time one chat request to it, `times` times; `direct` is
 * directColdLoads' result for the same engine. Per load:
 *   engine_ms   the engine's own time, from its executable starting to run (the bench's bash
 *               wrapper stamps it; a real engine is exec'd directly) to ready, Node's start-up
 *               included;
 *   total_ms    request sent -> answer read;
 *   overhead_ms what the gateway adds: (total_ms - engine_ms) - (the same for the engine
 *               started by hand): the time outside the engine's own load, through the gateway
 *               and without it;
 *   spawn_ms    request sent -> engine executable running (resolve, start plan, fork, exec);
 *   notice_ms   engine ready -> answer read, less the same time without the gateway
 *               (noticing readiness, the first answer's extra hop).
 * Two older measures, for comparison with earlier runs: overhead_vs_warm_ms subtracts a warm
 * answer (`warmMs`) instead of the engine's first answer reached directly, and
 * overhead_node_origin_ms also counts from Node's timeOrigin in the engine, which counted
 * the wrapper and Node's exec as the gateway's (the bench before 2026-11-25).
 */
export async function coldLoads(gatewayUrl, times, warmMs, direct) {
  const loads = [];
  const floor = direct.total_ms - direct.engine_ms;
  for (let i = 0; i < times; i++) {
    const unloaded = await post(gatewayUrl, `/api/slots/${MODELS.cold}/unload`, '{}');
    if (unloaded.status !== 200) throw new Error(`unloading the cold slot answered ${unloaded.status}`);
    const sentAt = epochNow();
    const response = await post(gatewayUrl, '/v1/chat/completions', chatBody(MODELS.cold));
    const doneAt = epochNow();
    if (response.status !== 200) throw new Error(`the cold request answered ${response.status}`);
    const nodeOrigin = Number(response.headers.get('x-engine-started-at'));
    const startedAt = Number(response.headers.get('x-engine-exec-at'));
    const readyAt = Number(response.headers.get('x-engine-ready-at'));
    const engine = readyAt - startedAt;
    const total = doneAt - sentAt;
    loads.push({
      engine_ms: engine, total_ms: total, overhead_ms: total - engine - floor,
      spawn_ms: startedAt - sentAt, notice_ms: doneAt - readyAt - direct.after_ready_ms,
      overhead_vs_warm_ms: total - engine - warmMs,
      overhead_node_origin_ms: total - (readyAt - nodeOrigin) - warmMs,
    });
  }
  const med = (key) => median(loads.map((l) => l[key]));
  return {
    engine_ms: med('engine_ms'), total_ms: med('total_ms'), overhead_ms: med('overhead_ms'), spawn_ms: med('spawn_ms'), notice_ms: med('notice_ms'),
    overhead_vs_warm_ms: med('overhead_vs_warm_ms'), overhead_node_origin_ms: med('overhead_node_origin_ms'), direct, loads,
  };
}
