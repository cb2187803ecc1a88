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
import { rssMb } from './processes.mjs';

import { HOSTILE_ROUTES, hostileBodies } from '../../test/fixtures/hostile-bodies.mjs';

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
