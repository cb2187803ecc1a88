// Guessing tokens from another host that holds a whole IPv6 /64 (issue 22): rotating through
// its addresses gets no more tries than the /64's budget, while each address alone stays
// under its own limit. The client runs in a network namespace of the test's own
// (test/helpers/lan.ts), so the gateway sees real, distinct peer addresses.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAILURE_LIMIT } from '../src/auth/failure-limit.js';
import { api, useTempGateways } from './helpers/gateway.js';
import { lanSkipReason, openLan, type Lan } from './helpers/lan.js';

const SECRET = 'guessing-test-proxy-secret-0123456789';
const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);
const skip = lanSkipReason();
const lans: Lan[] = [];
afterEach(() => lans.splice(0).forEach((lan) => lan.close()));

describe.skipIf(skip)('guessing tokens from one IPv6 /64', () => {
  it('rate-limits the /64 as a whole, not only each address', async () => {
    const gateway = await newGateway(newHome({ 'proxy-secret': SECRET }), { env: { SVC_AUTH_ENABLED: '1' }, args: ['--host', '::'] });
    const created = await api(gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: 'target', scope: 'all' } });
    expect(created.status).toBe(201);
    const lan = await openLan();
    lans.push(lan);
    const { limit, networkLimit } = DEFAULT_FAILURE_LIMIT;
    // Round-robin over three addresses: each stays below its own limit by the end.
    const tries = networkLimit + 1;
    expect(Math.ceil(tries / lan.clientAddresses6.length)).toBeLessThan(limit);
    const answers = [];
    for (let i = 0; i < tries; i++) {
      const wrong = `Bearer svc_${created.json.id}.${String(i).padStart(43, 'x')}`;
      const localAddress = lan.clientAddresses6[i % lan.clientAddresses6.length];
      answers.push(await lan.request(`${lan.url(gateway.port, 6)}/api/slots`, { headers: { authorization: wrong }, localAddress }));
    }
    expect(answers.slice(0, networkLimit).map((a) => a.json.error.code)).toEqual(new Array(networkLimit).fill('auth.invalid'));
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.json.error.code).toBe('auth.rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // The same host over IPv4 is another key: refused for the token, not for the rate.
    const v4 = await lan.request(`${lan.url(gateway.port, 4)}/api/slots`, { headers: { authorization: `Bearer svc_${created.json.id}.${'y'.repeat(43)}` } });
    expect(v4.json.error.code).toBe('auth.invalid');
  }, 60_000);
});
