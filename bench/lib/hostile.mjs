// Memory after hostile input (issue 6 §3): every /v1 route is sent random bytes, deeply
// nested JSON, 8 MiB strings and wrong types, round after round, and the gateway's RSS is
// sampled after each answer. test/faults-upstream.test.ts checks the answers themselves (an
// envelope each, the gateway still serving); how much memory they leave behind is a figure,
// so it is measured here and shown against its target, never asserted.
//
// V8 keeps the heap it grew for reuse, so the peak RSS of the warm-up rounds (8 MiB bodies
// parsed and re-serialised) is the baseline, its high-water mark. A leak of the bodies would
// add about 8 MiB per request (over 300 MiB a round) to the later rounds' peaks; the growth
// reported is the later rounds' peak over the warm-up peak.
import { randomBytes } from 'node:crypto';
import { rssMb } from './processes.mjs';

export const HOSTILE_ROUTES = ['/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/rerankings', '/v1/rerank', '/v1/audio/speech', '/v1/audio/transcriptions', '/v1/images/generations'];

/** Bodies no client should send: [content-type, body]. `model` is one the gateway serves (a huge prompt gets forwarded). */
export function hostileBodies(model) {
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  const deepObject = '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000);
  const huge = 'x'.repeat(8 * 1024 * 1024);
  return [
    ['application/json', randomBytes(4096)],
    ['application/json', deep],
    ['application/json', deepObject],
    ['application/json', JSON.stringify({ model: huge, messages: [{ role: 'user', content: huge }] })],
    ['application/json', JSON.stringify({ model, messages: [{ role: 'user', content: huge }], input: huge, prompt: huge })],
    ['application/json', JSON.stringify({ model: 5, messages: 'x', stream: 'yes', input: {}, prompt: [1, [2]], n: -1, size: {}, speed: 'fast', voice: null })],
    ['application/json', JSON.stringify({ model: ['svc/primary'], stream: true })],
    ['application/json', JSON.stringify({ model: 'svc/image', prompt: 'x', n: 1e308, size: '99999x99999', steps: 1e9 })],
    ['application/json', '"just a string"'],
    ['application/json', 'null'],
    ['multipart/form-data; boundary=xyz', randomBytes(4096)],
    ['multipart/form-data', '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nok\r\n--xyz--\r\n'],
    ['text/plain', huge],
    ['application/octet-stream', randomBytes(1024)],
  ];
}

/**
 * `rounds` rounds of every hostile body on every route, one request at a time; the first
 * `warmUpRounds` are the baseline. Returns the peak RSS of each round (MB), the growth of the
 * later rounds over the warm-up peak, the RSS once it is over, and the statuses seen
 * (`unexpected`: answers 5xx other than 502/504, which no hostile body should get).
 */
export async function hostileRss(gatewayUrl, pid, { model, rounds = 5, warmUpRounds = 2 }) {
  if (rounds <= warmUpRounds) throw new Error(`hostile input: ${rounds} rounds leave none after the ${warmUpRounds} warm-up rounds`);
  const bodies = hostileBodies(model);
  const peaks = [];
  const statuses = {};
  let unexpected = 0;
  for (let round = 0; round < rounds; round++) {
    let peak = 0;
    for (const route of HOSTILE_ROUTES) {
      for (const [type, body] of bodies) {
        const response = await fetch(`${gatewayUrl}${route}`, { method: 'POST', headers: { 'content-type': type }, body });
        await response.arrayBuffer();
        peak = Math.max(peak, rssMb(pid));
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        if (response.status >= 500 && ![502, 504].includes(response.status)) unexpected++;
      }
    }
    peaks.push(peak);
  }
  const warmPeak = Math.max(...peaks.slice(0, warmUpRounds));
  const laterPeak = Math.max(...peaks.slice(warmUpRounds));
  return {
    requests: rounds * HOSTILE_ROUTES.length * bodies.length, rounds, warm_up_rounds: warmUpRounds,
    peaks_mb: peaks, warm_peak_mb: warmPeak, later_peak_mb: laterPeak, growth_mb: laterPeak - warmPeak,
    after_mb: rssMb(pid), statuses, unexpected,
  };
}
