// Start-up measures: the gateway from process start to answering, and a cold slot from the
// request that wakes it to its answer, less the engine's own time to become ready (the
// engine stamps when its process started and when it turned ready on every answer).
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { MODELS, startGateway } from './processes.mjs';
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

async function post(url, path, body) {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  await response.arrayBuffer();
  return response;
}

/**
 * Unload the cold slot, then time one chat request to it, `times` times. Per load:
 *   engine_ms   the engine's own time, from its executable starting to run (the bench's bash
 *               wrapper stamps it; a real engine is exec'd directly) to ready, Node's start-up
 *               included;
 *   total_ms    request sent -> answer read;
 *   overhead_ms total_ms - engine_ms - the warm answer time (`warmMs`): what the gateway adds;
 *   spawn_ms    request sent -> engine executable running (resolve, start plan, fork, exec);
 *   notice_ms   engine ready -> answer read, less warmMs (noticing readiness: health polls).
 * And, as the bench measured before 2026-11-25, from Node's timeOrigin in the engine (which
 * counted the wrapper and Node's exec as the gateway's): overhead_node_origin_ms.
 */
export async function coldLoads(gatewayUrl, times, warmMs) {
  const loads = [];
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
      engine_ms: engine, total_ms: total, overhead_ms: total - engine - warmMs,
      spawn_ms: startedAt - sentAt, notice_ms: doneAt - readyAt - warmMs,
      overhead_node_origin_ms: total - (readyAt - nodeOrigin) - warmMs,
    });
  }
  const med = (key) => median(loads.map((l) => l[key]));
  return { engine_ms: med('engine_ms'), total_ms: med('total_ms'), overhead_ms: med('overhead_ms'), spawn_ms: med('spawn_ms'), notice_ms: med('notice_ms'), overhead_node_origin_ms: med('overhead_node_origin_ms'), loads };
}
