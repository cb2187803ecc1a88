// Non-streaming load with autocannon, the load generator, in this process. autocannon's own
// latency histogram has 1 ms resolution, too coarse for sub-millisecond differences, so
// every response's time (hrtime, fractional ms) is also collected from its 'response'
// event and the percentiles are computed from those.
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './processes.mjs';

/** The q-quantile of sorted numbers (nearest rank). */
export function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function median(values) {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

/**
 * Wait until the processes `pids` are idle: together at most one clock tick (10 ms) of CPU
 * over the last 300 ms, for at most `maxMs`. Of two proxies run back to back on this VM's 2
 * vCPUs, the second spent 15-25% more CPU per request, whichever it was; with this wait
 * between them, not (docs/performance.md, "Settling between runs"). Resolves to the ms waited.
 */
export async function quiesce(pids, maxMs = 5_000) {
  const started = performance.now();
  const used = () => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const samples = [used()];
  while (performance.now() - started < maxMs) {
    await new Promise((r) => setTimeout(r, 100));
    samples.push(used());
    if (samples.length >= 4 && samples.at(-1) - samples.at(-4) <= 0.01) break;
  }
  return performance.now() - started;
}

export const chatBody = (model) => JSON.stringify({ model, messages: [{ role: 'user', content: 'Say something short.' }], max_tokens: 24 });

/**
 * One autocannon run: `connections` closed-loop clients for `durationS`, POSTing `body`.
 * `pids` names the processes whose CPU use is read around the run (this one is "loadgen").
 */
export async function loadRun({ url, body, connections, durationS, pids = {}, headers = {} }) {
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const ownBefore = process.cpuUsage();
  const latencies = [];
  const instance = autocannon({
    url, method: 'POST', body, connections, duration: durationS, pipelining: 1,
    headers: { ...headers, 'content-type': 'application/json' },
  });
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode === 200) latencies.push(responseTime);
  });
  const result = await instance;
  const own = process.cpuUsage(ownBefore);
  const seconds = result.duration;
  const cpu = { loadgen: (own.user + own.system) / 1e6 / seconds };
  for (const [name, pid] of Object.entries(pids)) cpu[name] = (cpuSeconds(pid) - cpuBefore[name]) / seconds;
  latencies.sort((a, b) => a - b);
  return {
    connections,
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p90: quantile(latencies, 0.9),
    p99: quantile(latencies, 0.99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    cpu,
  };
}

/** Short untimed runs first: JIT, keep-alive connections and the gateway's pools warm up. */
export async function warmUp(urls, body, durationS = 1, headersFor = () => ({})) {
  for (const url of urls) await loadRun({ url, body, connections: 16, durationS, headers: headersFor(url) });
}
