// Two builds of svc against each other in one run: `node bench/ab.mjs <other checkout>` (both
// built). Each gateway gets a home of its own on one shared fast upstream; the c=64
// throughput and c=1 p50 runs alternate between them, the order swapped each round, so
// drift on this shared machine hits both alike. A full `npm run bench` moves by more than
// a change's effect from run to run; this compares like with like.
import { resolve } from 'node:path';
import { chatBody, loadRun, median, warmUp } from './lib/load.mjs';
import * as here from './lib/processes.mjs';

const otherRoot = process.argv[2];
if (!otherRoot) {
  console.error('usage: node bench/ab.mjs <path to another built checkout of svc>');
  process.exit(2);
}
const rounds = Number(process.env.AB_ROUNDS ?? 8);
const other = await import(resolve(otherRoot, 'bench/lib/processes.mjs'));
const upstreamPort = await here.freePort();
const upstream = await here.startUpstream(upstreamPort);
const homes = [await here.makeHome({ upstreamPort, coldLoadMs: 300 }), await other.makeHome({ upstreamPort, coldLoadMs: 300 })];
const gateways = { this: await here.startGateway(homes[0]), other: await other.startGateway(homes[1]) };
const body = chatBody(here.MODELS.remote);
const url = (name) => `${gateways[name].url}/v1/chat/completions`;
const figures = { this: { rps: [], p50: [] }, other: { rps: [], p50: [] } };
try {
  await warmUp([url('this'), url('other')], body, 2);
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      figures[name].rps.push((await loadRun({ url: url(name), body, connections: 64, durationS: 3 })).rps);
      figures[name].p50.push((await loadRun({ url: url(name), body, connections: 1, durationS: 2 })).p50);
    }
  }
} finally {
  for (const gateway of Object.values(gateways)) await gateway.stop();
  await upstream.stop();
  for (const home of homes) home.remove();
}
const summary = (name) => ({ c64_rps: Math.round(median(figures[name].rps)), c1_p50_ms: Math.round(median(figures[name].p50) * 1000) / 1000 });
const result = { rounds, this: summary('this'), other: summary('other') };
result.c64_ratio = Math.round((result.this.c64_rps / result.other.c64_rps) * 1000) / 1000;
console.log(JSON.stringify(result, null, 2));
