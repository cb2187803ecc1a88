// What auth mode adds to a /v1 request: a second gateway in auth mode, with a v1-only
// token, beside the default-mode one, both in front of the same upstream. Runs alternate
// (open, auth, open, auth, ...) so a noisy neighbour hits both alike; medians of the reps.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chatBody, loadRun, median, warmUp } from './load.mjs';
import { makeHome, MODELS, startGateway } from './processes.mjs';

const SECRET = 'bench-proxy-secret-0123456789abcdef';

/**
 * The guard's own time for one /v1 request with a verified token, in this process (the
 * median of 5 rounds of 100,000 checks): the figure end-to-end runs on a busy 2-core
 * machine cannot resolve below about ±25 us.
 */
async function guardCheckMicroseconds(home, token) {
  const { GatewayAuth } = await import('../../dist/auth/gateway-auth.js');
  const { SerialQueue } = await import('../../dist/lib/serial-queue.js');
  const { resolvePaths } = await import('../../dist/config/paths.js');
  const paths = resolvePaths({ env: { SVC_HOME: home }, isRoot: false, homeDir: home, exists: () => false });
  const auth = new GatewayAuth(paths, new SerialQueue(), () => true, () => undefined);
  await auth.open();
  try {
    const request = { access: 'v1', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, peer: '127.0.0.1' };
    await auth.guard.check(request);
    const rounds = [];
    for (let round = 0; round < 5; round++) {
      const n = 100_000;
      const start = performance.now();
      for (let i = 0; i < n; i++) auth.guard.check(request);
      rounds.push(((performance.now() - start) * 1000) / n);
    }
    return median(rounds);
  } finally {
    auth.close();
  }
}

export async function authOverhead({ openUrl, openPid, upstreamPort, upstreamPid, reps, durationS }) {
  const home = await makeHome({ upstreamPort, coldLoadMs: 0 });
  writeFileSync(join(home.home, 'etc/svc/proxy-secret'), SECRET);
  const gateway = await startGateway(home, [], { SVC_AUTH_ENABLED: '1' });
  try {
    const created = await fetch(`${gateway.url}/api/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-email': 'bench', 'x-svc-proxy-secret': SECRET },
      body: JSON.stringify({ label: 'bench', scope: 'v1-only' }),
    });
    if (created.status !== 201) throw new Error(`token not created: ${created.status} ${await created.text()}`);
    const { token } = await created.json();
    const sides = {
      open: { url: `${openUrl}/v1/chat/completions`, headers: {}, pid: openPid },
      auth: { url: `${gateway.url}/v1/chat/completions`, headers: { authorization: `Bearer ${token}` }, pid: gateway.pid },
    };
    const body = chatBody(MODELS.remote);
    await warmUp(Object.values(sides).map((s) => s.url), body, 1, (url) => (url === sides.auth.url ? sides.auth.headers : {}));
    const raw = {};
    for (let rep = 0; rep < reps; rep++) {
      for (const c of [1, 64]) {
        // Which side goes first alternates, so neither always runs on a machine the other warmed.
        const order = rep % 2 === 0 ? Object.entries(sides) : Object.entries(sides).reverse();
        for (const [name, side] of order) {
          const result = await loadRun({ url: side.url, body, connections: c, durationS, headers: side.headers, pids: { gateway: side.pid, upstream: upstreamPid } });
          if (result.errors + result.non2xx > 0) throw new Error(`${name} at c=${c}: ${result.errors} errors, ${result.non2xx} non-2xx answers`);
          ((raw[`c${c}`] ??= {})[name] ??= []).push(result);
        }
      }
    }
    const out = {};
    for (const [c, byside] of Object.entries(raw)) {
      const p50 = (name) => median(byside[name].map((r) => r.p50));
      const rps = (name) => median(byside[name].map((r) => r.rps));
      out[c] = { open_p50_ms: p50('open'), auth_p50_ms: p50('auth'), added_p50_us: (p50('auth') - p50('open')) * 1000, open_rps: rps('open'), auth_rps: rps('auth'), rps_ratio: rps('auth') / rps('open') };
    }
    out.guard_check_us = await guardCheckMicroseconds(home.home, token);
    return out;
  } finally {
    await gateway.stop();
    home.remove();
  }
}
