// What the front door's checks cost per request (docs/performance.md, "The front door's
// checks"): the admission every request passes (src/server/admission.ts: the shutdown flag;
// auth/browser-policy.ts's Host, Origin and form rules; the auth guard, in default mode),
// timed in this process over a mix of the requests a gateway serves, each kind alone as well,
// and a refusal apart (its cost is the error object's, mostly the stack V8 captures). End to
// end, the same cost is inside the gateway's added p50 at c=1 (run.mjs, --front-door-only).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { median } from './load.mjs';

const socket = (local, remote = local) => ({ localAddress: local, remoteAddress: remote });
const chromium = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'accept-language': 'en-GB,en;q=0.9', 'accept-encoding': 'gzip, deflate, br, zstd', 'sec-ch-ua-mobile': '?0', 'sec-ch-ua-platform': '"Linux"' };

/** Requests as admission sees them (an IncomingMessage's method, headers and socket) with their route's access class; `n` is how many of each in the mix. */
const KINDS = {
  'an SDK on this host, /v1 JSON': { n: 4, access: 'v1', method: 'POST', socket: socket('127.0.0.1'), headers: { host: '127.0.0.1:8080', 'content-type': 'application/json', 'content-length': '151', authorization: 'Bearer sk-local', accept: 'application/json', 'user-agent': 'OpenAI/Python 1.55.0', 'x-stainless-lang': 'python', connection: 'keep-alive' } },
  'a LAN client, /v1 JSON': { n: 2, access: 'v1', method: 'POST', socket: socket('10.0.0.5', '10.0.0.7'), headers: { host: '10.0.0.5:8080', 'content-type': 'application/json', 'content-length': '151', accept: '*/*', 'user-agent': 'node', 'sec-fetch-mode': 'cors' } },
  'the dashboard, a read by name': { n: 2, access: 'read', method: 'GET', socket: socket('10.0.0.5', '10.0.0.7'), headers: { host: 'svc.lan:8080', accept: 'application/json', referer: 'http://svc.lan:8080/slots', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', ...chromium } },
  'the dashboard, a JSON write': { n: 1, access: 'write', method: 'PUT', socket: socket('127.0.0.1'), headers: { host: 'localhost:8080', origin: 'http://localhost:8080', 'content-type': 'application/json', 'content-length': '40', referer: 'http://localhost:8080/settings', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', ...chromium } },
  'curl -X POST': { n: 1, access: 'write', method: 'POST', socket: socket('127.0.0.1'), headers: { host: '127.0.0.1:8080', 'user-agent': 'curl/8.5.0', accept: '*/*' } },
  'curl -F (multipart)': { n: 1, access: 'v1', method: 'POST', socket: socket('10.0.0.5', '10.0.0.7'), headers: { host: '10.0.0.5:8080', 'user-agent': 'curl/8.5.0', accept: '*/*', 'content-length': '48213', 'content-type': 'multipart/form-data; boundary=------------------------c1a2b3d4e5f6a7b8' } },
  'a page elsewhere, a no-cors POST (refused)': { n: 1, access: 'write', method: 'POST', socket: socket('127.0.0.1'), headers: { host: '127.0.0.1:8080', origin: 'http://attacker.example', referer: 'http://attacker.example/', 'content-type': 'text/plain;charset=UTF-8', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', ...chromium } },
};

/** Median ns per admit() over `requests`, in rounds of `perRound` calls. */
function timeAdmit(admission, requests, rounds, perRound) {
  const results = [];
  for (let round = 0; round < rounds; round++) {
    const start = performance.now();
    for (let i = 0; i < perRound; i++) {
      const request = requests[i % requests.length];
      admission.admit(request.access, request);
    }
    results.push(((performance.now() - start) * 1e6) / perRound);
  }
  return median(results);
}

/** The admission's time per request, in ns: the mix of served requests, each kind alone, the refusal. */
export async function frontDoorChecks({ rounds = 7, perRound = 200_000 } = {}) {
  const { Admission } = await import('../../dist/server/admission.js');
  const { GatewayAuth } = await import('../../dist/auth/gateway-auth.js');
  const { compileBrowserRules } = await import('../../dist/auth/browser-policy.js');
  const { SerialQueue } = await import('../../dist/lib/serial-queue.js');
  const { resolvePaths } = await import('../../dist/config/paths.js');
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-front-'));
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const auth = new GatewayAuth(paths, new SerialQueue(), () => false, () => undefined);
  await auth.open();
  try {
    const rules = compileBrowserRules(['svc.lan'], ['http://localhost:3000']);
    const admission = new Admission(auth.guard, () => rules);
    const kinds = Object.entries(KINDS).map(([name, k]) => ({ name, ...k, refused: name.endsWith('(refused)') }));
    for (const k of kinds) {
      const decision = admission.admit(k.access, k);
      if (('kind' in decision) === k.refused) throw new Error(`${k.name}: admitted ${'kind' in decision}, expected the opposite (${decision.code ?? ''})`);
    }
    const mix = kinds.filter((k) => !k.refused).flatMap((k) => Array.from({ length: k.n }, () => k));
    // Warm-up: the JIT settles, the Host and Origin decisions are cached as in a running gateway.
    timeAdmit(admission, mix, 2, perRound);
    const byKind = Object.fromEntries(kinds.map((k) => [k.name, timeAdmit(admission, [k], rounds, k.refused ? perRound / 20 : perRound)]));
    return { served_mix_ns: timeAdmit(admission, mix, rounds, perRound), by_kind_ns: byKind, mix: Object.fromEntries(mix.map((k) => [k.name, k.n])) };
  } finally {
    auth.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** The gateway's added p50 at c=1 over the upstream reached directly, the two alternated (medians of `reps` runs), in µs. */
export async function addedAtC1({ directUrl, gatewayUrl, body, reps, durationS }) {
  const { loadRun } = await import('./load.mjs');
  const p50 = { direct: [], gateway: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (const [side, url] of rep % 2 === 0 ? [['direct', directUrl], ['gateway', gatewayUrl]] : [['gateway', gatewayUrl], ['direct', directUrl]]) {
      const result = await loadRun({ url, body, connections: 1, durationS });
      if (result.errors + result.non2xx > 0) throw new Error(`${side}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
      p50[side].push(result.p50);
    }
  }
  return { direct_p50_ms: median(p50.direct), gateway_p50_ms: median(p50.gateway), added_p50_us: (median(p50.gateway) - median(p50.direct)) * 1000 };
}
