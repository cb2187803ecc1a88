// The activity log's actor cannot be lied to (issue 22): X-Svc-Actor is believed only from the
// proxy (its secret verified). A token is always token:<label>; an anonymous client may name
// the tool it is (cli, dashboard) but never an identity (user:…, token:…) nor svc itself.
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways } from './helpers/gateway.js';

const SECRET = 'actor-test-proxy-secret-0123456789';
const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);

/** Scan (a change that records its actor) with these headers; the actor of the row it wrote. */
async function scanActor(url: string, headers: Record<string, string>): Promise<string> {
  const scan = await api(url, '/api/models/scan', { method: 'POST', headers, body: {} });
  expect(scan.status, scan.text).toBe(200);
  const rows = await api(url, '/api/activity?action=model.scan&limit=1', { headers: 'authorization' in headers ? headers : proxy });
  return rows.json.items[0].actor;
}

describe('the actor of an activity row', () => {
  it('takes no identity from an anonymous client, only a tool name', async () => {
    const gateway = await newGateway(newHome());
    for (const claimed of ['user:admin', 'token:ci', 'system', 'SYSTEM', 'x'.repeat(33)]) expect(await scanActor(gateway.url, { 'x-svc-actor': claimed }), claimed).toBe('api');
    expect(await scanActor(gateway.url, {})).toBe('api');
    expect(await scanActor(gateway.url, { 'x-svc-actor': 'dashboard' })).toBe('dashboard');
  }, 30_000);

  it('is the token or the proxy user in auth mode, and the proxy alone may name it', async () => {
    const gateway = await newGateway(newHome({ 'proxy-secret': SECRET }), { env: { SVC_AUTH_ENABLED: '1' } });
    const created = await api(gateway.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: 'ci', scope: 'admin' } });
    expect(created.status).toBe(201);
    const bearer = { authorization: `Bearer ${created.json.token}` };
    expect(await scanActor(gateway.url, { ...bearer, 'x-svc-actor': 'user:admin' })).toBe('token:ci');
    expect(await scanActor(gateway.url, proxy)).toBe('user:admin@example.test');
    expect(await scanActor(gateway.url, { ...proxy, 'x-svc-actor': 'cli' })).toBe('cli');
    const forged = await api(gateway.url, '/api/models/scan', { method: 'POST', headers: { ...proxy, 'x-svc-proxy-secret': 'not-the-secret-0123456789', 'x-svc-actor': 'user:admin' }, body: {} });
    expect(forged.status).toBe(401);
  }, 30_000);
});
