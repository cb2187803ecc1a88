// Streaming measures, taken by a plain node:http client that timestamps every read: time to
// first token (request sent -> first content event read), the delay between consecutive
// tokens as the client reads them, each token event's transit time
// (read time - the upstream's sent_at stamp; both clocks are this machine's, and the same
// upstream process serves the direct and the gateway case, so differences are exact), and
// how many token events arrive per read (more than one per read means chunks were coalesced).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { quantile } from './load.mjs';

const epochNow = () => performance.timeOrigin + performance.now();
const TOKEN = '"content":"tok';

/** One streaming chat request; resolves with its timings, or with `error` set. */
export function streamOnce(url, body, agent, headers = {}) {
  return new Promise((done) => {
    const started = performance.now();
    const sample = { ttft: NaN, tokens: 0, events: 0, reads: 0, tokenReads: 0, maxTokensPerRead: 0, transits: [], gaps: [], done: false, status: 0, error: undefined };
    let lastTokenAt = NaN;
    let pending = '';
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      sample.status = res.statusCode;
      res.setEncoding('utf8');
      res.on('data', (text) => {
        const at = epochNow();
        sample.reads++;
        pending += text;
        const events = pending.split('\n\n');
        pending = events.pop();
        let tokensHere = 0;
        for (const event of events) {
          sample.events++;
          if (event.includes('[DONE]')) sample.done = true;
          if (!event.includes(TOKEN)) continue;
          tokensHere++;
          const sentAt = /"sent_at":"([\d.]+)"/.exec(event);
          if (sentAt) sample.transits.push(at - Number(sentAt[1]));
        }
        if (tokensHere > 0) {
          const now = performance.now();
          if (sample.tokens === 0) sample.ttft = now - started;
          else sample.gaps.push(now - lastTokenAt);
          lastTokenAt = now;
          sample.tokens += tokensHere;
          sample.tokenReads++;
          sample.maxTokensPerRead = Math.max(sample.maxTokensPerRead, tokensHere);
        }
      });
      res.on('end', () => done(sample));
      res.on('error', (error) => done({ ...sample, error: error.message }));
    });
    req.on('error', (error) => done({ ...sample, error: error.message }));
    req.end(body);
  });
}

export const streamBody = (model, chunks, intervalMs) =>
  JSON.stringify({ model, stream: true, max_tokens: chunks, bench_interval_ms: intervalMs, messages: [{ role: 'user', content: 'Count.' }] });

/**
 * `count` streams, `concurrency` at a time; TTFT and per-token transit percentiles, and the
 * whole streams answered per second (`streams_per_s`: failed ones do not count).
 */
export async function streamRun({ url, model, chunks, intervalMs, count, concurrency, headers = {} }) {
  const startedAt = performance.now();
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const body = streamBody(model, chunks, intervalMs);
  const samples = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      samples.push(await streamOnce(url, body, agent, headers));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  const wallMs = performance.now() - startedAt;
  const summary = summarize(samples, chunks);
  return { ...summary, wall_ms: wallMs, streams_per_s: ((summary.streams - summary.failed) / wallMs) * 1000 };
}

/** Percentiles over the samples, and whether every stream came back whole. */
export function summarize(samples, chunks) {
  const ttfts = samples.map((s) => s.ttft).filter(Number.isFinite).sort((a, b) => a - b);
  const transits = samples.flatMap((s) => s.transits).sort((a, b) => a - b);
  const gaps = samples.flatMap((s) => s.gaps).sort((a, b) => a - b);
  const failed = samples.filter((s) => s.error || s.status !== 200 || !s.done || s.tokens !== chunks);
  return {
    streams: samples.length,
    failed: failed.length,
    first_failure: failed[0] ? { status: failed[0].status, error: failed[0].error, tokens: failed[0].tokens, done: failed[0].done } : null,
    ttft_p50: quantile(ttfts, 0.5),
    ttft_p99: quantile(ttfts, 0.99),
    transit_p50: quantile(transits, 0.5),
    transit_p99: quantile(transits, 0.99),
    gap_p50: quantile(gaps, 0.5),
    gap_p99: quantile(gaps, 0.99),
    tokens: samples.reduce((n, s) => n + s.tokens, 0),
    token_reads: samples.reduce((n, s) => n + s.tokenReads, 0),
    max_tokens_per_read: Math.max(0, ...samples.map((s) => s.maxTokensPerRead)),
  };
}

/**
 * `count` streams all open at once (each `chunks` tokens `intervalMs` apart, so they overlap
 * for chunks x intervalMs): every one must come back whole. `onTick` runs every 100 ms while
 * they are open (RSS sampling).
 */
export async function holdStreams({ url, model, chunks, intervalMs, count, onTick }) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const body = streamBody(model, chunks, intervalMs);
  const ticker = setInterval(() => onTick?.(), 100);
  const started = performance.now();
  const samples = await Promise.all(Array.from({ length: count }, () => streamOnce(url, body, agent)));
  clearInterval(ticker);
  agent.destroy();
  return { ...summarize(samples, chunks), wall_ms: performance.now() - started };
}
