// The tiny model's token rate split over two llama.cpp RPC workers against one host
// (docs/scaling.md, "Figures"). One gateway on this machine runs two llama-rpc slots
// (rpc-server on 127.0.0.1, one CPU thread each), a llama-server slot whose rpc_workers name
// both (-ngl 999: the layers go to the workers), and a llama-server slot on the same model
// with nothing offloaded. The same chat is sent to each, alternating, several runs; the rate
// is completion tokens over each request's wall time, and llama-server's own decode rate
// (timings.predicted_per_second) where it reports one. On one machine the split is expected
// to be slower: every layer's activations cross a TCP socket, twice per token. It proves
// the path (weights sent to two workers, tokens computed there), not a speed-up.
// Used by bench/run.mjs (the `rpc` figures) and bench/rpc.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';
import { freePort, REPO_ROOT, startGateway } from './processes.mjs';
import { tinyModelHome } from './tiny-home.mjs';

const MAX_TOKENS = 48;
// ignore_eos: the tiny model's greedy answer may end at once; every run computes MAX_TOKENS tokens.
const body = (model) => ({ model, messages: [{ role: 'user', content: 'Count to ten.' }], max_tokens: MAX_TOKENS, temperature: 0, ignore_eos: true });

/** llama-server and the rpc-server beside it, as the build script caches them, or why not. */
function binaries() {
  const llama = process.env.SVC_LLAMA_SERVER || execFileSync('bash', [join(REPO_ROOT, 'scripts/build-llama-server.sh'), '--print-path'], { encoding: 'utf8' }).trim().split('\n').pop();
  const rpc = process.env.SVC_RPC_SERVER || join(dirname(llama), 'rpc-server');
  if (!existsSync(llama) || !existsSync(rpc)) return { missing: `llama-server with rpc-server beside it is not built (${llama}); run bash scripts/build-llama-server.sh` };
  return { llama, rpc };
}

async function chat(url, model) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body(model)) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${model}: ${res.status} ${JSON.stringify(json)}`);
  const ms = performance.now() - t0;
  return { tokens: json.usage.completion_tokens, ms, tps: (json.usage.completion_tokens * 1000) / ms, engineTps: json.timings?.predicted_per_second ?? null };
}

export async function measureRpc({ runs = 7 } = {}) {
  const found = binaries();
  if (found.missing) return { skipped: found.missing };
  const root = await tinyModelHome('svc-bench-rpc-');
  const slots = join(root, 'etc/svc/slots');
  mkdirSync(slots, { recursive: true });
  const ports = new Set();
  while (ports.size < 4) ports.add(await freePort([8081, 8200]));
  const [a, b, split, solo] = [...ports];
  const worker = (name, port) => `[slot]\nname = "${name}"\nport = ${port}\ntype = "rpc-worker"\nprovider = "llama-rpc"\ndevice = "cpu"\n\n[rpc]\nhost = "127.0.0.1"\nthreads = 1\n`;
  writeFileSync(join(slots, 'lend-a.toml'), worker('lend-a', a));
  writeFileSync(join(slots, 'lend-b.toml'), worker('lend-b', b));
  const llm = (name, port, extra) => `[slot]\nname = "${name}"\nport = ${port}\ndevice = "cpu"\n${extra}\n[model]\ndefault = "tiny"\ncontext_size = 512\n\n[server]\nextra_args = "-t 1"\n`;
  writeFileSync(join(slots, 'split.toml'), llm('split', split, `rpc_workers = ["127.0.0.1:${a}", "127.0.0.1:${b}"]\n`));
  writeFileSync(join(slots, 'solo.toml'), llm('solo', solo, ''));
  // Nothing starts at boot: the workers are loaded first, the llm slots by their first request
  // (a split slot started at boot beside its workers could find them not yet listening).
  writeFileSync(join(root, 'etc/svc/svc.toml'), '[slots]\nstart_at_boot = false\n');
  const gw = await startGateway({ home: root, wrapper: found.llama }, [], { SVC_RPC_SERVER: found.rpc });
  const samples = { split: [], solo: [] };
  try {
    // The workers first; the first request to each llm slot loads it.
    for (const name of ['lend-a', 'lend-b']) {
      const res = await fetch(`${gw.url}/api/slots/${name}/load`, { method: 'POST', headers: { 'x-svc-actor': 'bench' } });
      if (res.status >= 300) throw new Error(`loading ${name}: ${res.status} ${await res.text()}`);
    }
    for (let i = 0; i < 300; i++) {
      const views = await (await fetch(`${gw.url}/api/slots`)).json();
      if (views.slots.filter((s) => s.name.startsWith('lend-')).every((s) => s.state === 'ready')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    for (const model of ['split', 'solo']) await chat(gw.url, model); // load and warm up, unmeasured
    for (let run = 0; run < runs; run++) for (const model of ['split', 'solo']) samples[model].push(await chat(gw.url, model));
  } finally {
    await gw.stop();
    rmSync(root, { recursive: true, force: true });
  }
  const r = (x) => (x === null ? null : Math.round(x * 100) / 100);
  const summary = (list) => ({
    tokens_per_s: r(median(list.map((s) => s.tps))),
    engine_tokens_per_s: list.every((s) => s.engineTps !== null) ? r(median(list.map((s) => s.engineTps))) : null,
    request_ms: r(median(list.map((s) => s.ms))),
    completion_tokens: median(list.map((s) => s.tokens)),
  });
  const out = { runs, max_tokens: MAX_TOKENS, workers: 2, split: summary(samples.split), one_host: summary(samples.solo) };
  out.split_over_one_host = r(out.split.tokens_per_s / out.one_host.tokens_per_s);
  return out;
}
