// The fuzzer, kept as a test (issue 36): a bounded, seeded run of hostile requests over every
// route of the access table, against a real gateway in default mode and in auth mode. It
// holds that hostile input never costs an answer: the gateway stays alive (a health check
// after each batch), nothing is an internal error, every error is the catalogue's envelope
// (the bundled MCP endpoints' JSON-RPC errors aside), no answer passes its bound, and in
// auth mode no caller reaches a route its scope does not grant.
// SVC_FUZZ_SEED, SVC_FUZZ_REQUESTS and SVC_FUZZ_AUTH_REQUESTS change the run; `npm run bench`
// runs a longer one (bench/fuzz.mjs), and SVC_FUZZ_REPORT names a file for its figures.
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPE_GRANTS } from '../src/protocol/access.js';
import type { TokenScope } from '../src/protocol/vocabulary.js';
import { FULL_CYCLE, fuzzPlan, ROUTES } from './helpers/fuzz-cases.js';
import { runFuzz, type FuzzRun } from './helpers/fuzz-http.js';
import { api, type Gateway, startGateway, tempHome } from './helpers/gateway.js';

const SEED = Number(process.env.SVC_FUZZ_SEED ?? 36);
// By default two passes over every route in default mode and one in auth mode: well under a minute.
const REQUESTS = Number(process.env.SVC_FUZZ_REQUESTS ?? 2 * FULL_CYCLE);
const AUTH_REQUESTS = Number(process.env.SVC_FUZZ_AUTH_REQUESTS ?? FULL_CYCLE);
/** Memory's embedded database takes a while to first start; the short run leaves memory off (its routes still parse every body). */
const MEMORY = process.env.SVC_FUZZ_MEMORY === '1';

// Every address the gateway could reach out to refuses at once: a fuzzed pull, update or install fails fast.
const NOWHERE = 'http://127.0.0.1:9';
const OFFLINE = { SVC_HF_ENDPOINT: NOWHERE, SVC_NPM_REGISTRY: NOWHERE, SVC_HINDSIGHT_URL: NOWHERE, PIP_INDEX_URL: NOWHERE, npm_config_registry: NOWHERE };
const SVC_TOML = MEMORY ? '' : '[memory]\nenabled = false\n';
const SECRET = 'fuzz-proxy-secret-0123456789abcdef';
/** A bound for a run of `requests` (a hang guard; the run takes a fraction of it): 2 minutes, and 0.2 s a request past that. */
const timeoutFor = (requests: number) => 120_000 + requests * 200;

process.stderr.write(`fuzz: seed ${SEED}, ${REQUESTS} requests in default mode and ${AUTH_REQUESTS} in auth mode over ${ROUTES.length} routes${MEMORY ? ', memory on' : ''}\n`);

const gateways: Gateway[] = [];
const report: Record<string, unknown> = { seed: SEED, routes: ROUTES.length };
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  if (process.env.SVC_FUZZ_REPORT) writeFileSync(process.env.SVC_FUZZ_REPORT, `${JSON.stringify(report, null, 2)}\n`);
});

/** The gateway's own log lines that say it failed on a request (every internal error is logged). */
const internalErrors = (gateway: Gateway) => gateway.output().split('\n').filter((line) => /internal error/i.test(line)).map((line) => line.slice(0, 200));

function summarise(mode: string, run: FuzzRun, gateway: Gateway, startedAt: number): void {
  report[mode] = { sent: run.sent, seconds: Math.round((Date.now() - startedAt) / 100) / 10, statuses: run.statuses, failures: run.failures.length };
  process.stderr.write(`fuzz: ${mode}: ${run.sent} requests, answers by status ${JSON.stringify(run.statuses)}, ${run.failures.length} kinds of failure\n`);
  expect(gateway.process.exitCode, `the gateway exited:\n${gateway.output().slice(-2000)}`).toBe(null);
}

describe(`the fuzzer (seed ${SEED})`, () => {
  it('default mode: every route stays answered, in the envelope, within bounds, and never internally failed', async () => {
    const home = tempHome({ 'svc.toml': SVC_TOML });
    const gateway = await startGateway(home.home, { env: OFFLINE });
    gateways.push(gateway);
    const startedAt = Date.now();
    const run = await runFuzz(gateway.port, fuzzPlan(REQUESTS, SEED));
    summarise('default', run, gateway, startedAt);
    expect(run.sent).toBe(REQUESTS);
    expect(run.failures).toEqual([]);
    expect(internalErrors(gateway)).toEqual([]);
  }, timeoutFor(REQUESTS));

  it('auth mode: a token of each scope reaches no route its scope does not grant, whatever it sends', async () => {
    const home = tempHome({ 'svc.toml': SVC_TOML, 'proxy-secret': `${SECRET}\n` });
    const gateway = await startGateway(home.home, { env: { ...OFFLINE, SVC_AUTH_ENABLED: '1' } });
    gateways.push(gateway);
    const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
    const callers: Array<{ scope: TokenScope | null; headers: Record<string, string> }> = [{ scope: null, headers: {} }];
    for (const scope of Object.keys(SCOPE_GRANTS) as TokenScope[]) {
      const created = await api(gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: `fuzz-${scope}`, scope } });
      expect(created.status, created.text).toBe(201);
      callers.push({ scope, headers: { authorization: `Bearer ${created.json.token}` } });
    }
    // The refusals a caller without the grant may get; anything else means the route's handler ran for it.
    const AUTH_REFUSALS = new Set(['auth.required', 'auth.forbidden', 'auth.invalid']);
    const REFUSALS = new Set([...AUTH_REFUSALS, 'request.form_post', 'request.cross_site']);
    const startedAt = Date.now();
    const run = await runFuzz(gateway.port, fuzzPlan(AUTH_REQUESTS, SEED + 1, { routeStable: true }), {
      caller: (index) => {
        const caller = callers[index % callers.length]!;
        const grants: readonly string[] = caller.scope ? SCOPE_GRANTS[caller.scope] : ['public'];
        return {
          headers: caller.headers,
          check: (fuzz, status, code) => {
            const refused = (status === 401 || status === 403) && code !== undefined && REFUSALS.has(code);
            if (!grants.includes(fuzz.route.access) && !refused) return `${caller.scope ?? 'no credentials'} got past a ${fuzz.route.access} route`;
            if (grants.includes(fuzz.route.access) && code !== undefined && AUTH_REFUSALS.has(code)) return `${caller.scope ?? 'no credentials'} was refused a ${fuzz.route.access} route it is granted`;
            return undefined;
          },
        };
      },
    });
    summarise('auth', run, gateway, startedAt);
    expect(run.sent).toBe(AUTH_REQUESTS);
    expect(run.failures).toEqual([]);
    expect(internalErrors(gateway)).toEqual([]);
  }, timeoutFor(AUTH_REQUESTS));
});
