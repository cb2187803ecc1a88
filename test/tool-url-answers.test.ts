// What a tool server URL can read back, from this host (docs/auth.md, "Tool server URLs"):
// even a URL the host itself installed never brings an upstream's body into an answer, a
// record, an event or the activity log, only a status and a short reason; and the gateway's
// own requests to its own port carry no host authority, whichever component sends them (the
// MCP client, the persona reload nudge), so a URL that names a host-only route is refused.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personaToml, SEED_PERSONAS } from '../src/agents/persona-seeds.js';
import { api, type Gateway, startGateway, type TempHome, tempHome } from './helpers/gateway.js';
import { type SecretService, startSecretService } from './helpers/tool-url-fixtures.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;
let internal: SecretService;

beforeAll(async () => {
  internal = await startSecretService();
  // One failure is a crash loop: a server that cannot connect stays in error, with its last_error.
  home = tempHome({ 'svc.toml': '[mcp]\nping_interval_s = 0\nrestart_max = 1\n' });
  gw = await startGateway(home.home);
});
afterAll(async () => {
  await gw?.stop();
  internal?.close();
});

const install = (body: Record<string, unknown>) => api(gw.url, '/api/mcp/install', { method: 'POST', body });

describe('an upstream body is never echoed', () => {
  it('keeps an internal service\'s answer out of last_error, the test answer, logs, events and activity', async () => {
    const cases = [
      { id: 'int-500', body: { url: `${internal.base}/500/mcp` }, says: 'HTTP 500' },
      { id: 'int-json', body: { url: `${internal.base}/json/mcp` }, says: 'not an MCP answer' },
      { id: 'int-404', body: { url: `${internal.base}/mcp` }, says: 'HTTP 404' },
      { id: 'int-sse', body: { manifest: { transport: 'sse', url: `${internal.base}/json/sse` } }, says: '' },
    ];
    const seen: string[] = [];
    for (const c of cases) {
      const installed = await install({ ...c.body, id: c.id });
      expect(installed.status, installed.text).toBe(201);
      const view = await waitFor(async () => (await api(gw.url, `/api/mcp/servers/${c.id}`)).json, { what: `${c.id} in error`, until: (v) => v.state === 'error' && v.last_error !== null });
      expect(view.last_error, c.id).toContain(c.says);
      const tested = await api(gw.url, `/api/mcp/${c.id}/test`, { method: 'POST' });
      expect(tested.json.ok, c.id).toBe(false);
      const started = await api(gw.url, `/api/mcp/${c.id}/start`, { method: 'POST' });
      expect(started.json.error?.code, c.id).toBe('mcp.unavailable');
      seen.push(JSON.stringify(view), tested.text, started.text, (await api(gw.url, `/api/mcp/${c.id}/logs`)).text);
    }
    seen.push((await api(gw.url, '/api/mcp/servers')).text, (await api(gw.url, '/api/events?limit=1000')).text, (await api(gw.url, '/api/activity?limit=500')).text);
    // The host may point a tool server at a loopback service: it was reached, and read nothing back.
    expect(internal.hits()).toBeGreaterThan(0);
    for (const text of seen) expect(text).not.toContain(internal.secret);
  }, 60_000);
});

describe('the gateway\'s own requests carry no host authority', () => {
  it('refuses a tool server URL that names a host-only route of this gateway', async () => {
    const installed = await install({ url: `http://127.0.0.1:${gw.port}/api/updates/rollback`, id: 'self-rollback', enabled: false });
    expect(installed.status, installed.text).toBe(201);
    const tested = await api(gw.url, '/api/mcp/self-rollback/test', { method: 'POST' });
    // Not update.no_previous: the rollback was never considered.
    expect(tested.json).toMatchObject({ ok: false, error: 'the server answered HTTP 403' });
    const rows = (await api(gw.url, '/api/activity?action=update.rollback')).json.items;
    expect(rows[0]).toMatchObject({ outcome: 'error', details: { code: 'config.host_only', client: '127.0.0.1' } });
  }, 30_000);

  it('refuses it token management too (the guard\'s own host check)', async () => {
    const before = (await api(gw.url, '/api/auth/tokens')).json.tokens.length;
    expect((await install({ url: `http://127.0.0.1:${gw.port}/api/auth/tokens`, id: 'self-tokens', enabled: false })).status).toBe(201);
    const tested = await api(gw.url, '/api/mcp/self-tokens/test', { method: 'POST' });
    expect(tested.json).toMatchObject({ ok: false, error: 'the server answered HTTP 401' });
    expect((await api(gw.url, '/api/auth/tokens')).json.tokens.length).toBe(before);
  }, 30_000);

  it('refuses the persona reload nudge sent to a host-only route of this gateway', async () => {
    const personas = join(home.stateRoot, 'agents/hermes/data/personas');
    mkdirSync(personas, { recursive: true });
    writeFileSync(join(personas, 'hermes.toml'), personaToml(SEED_PERSONAS[0]!));
    const url = `http://127.0.0.1:${gw.port}/api/updates/rollback`;
    const activated = await api(gw.url, '/api/agents/hermes/personas/hermes/activate', { method: 'POST', body: { reload_url: url } });
    expect(activated.status, activated.text).toBe(200);
    expect(activated.json.hot_reload).toEqual({ ok: false, error: 'HTTP 403', url });
  }, 30_000);

  it('keeps host authority for a client on this host (the CLI\'s process, not the gateway\'s)', async () => {
    const whoami = await api(gw.url, '/api/auth/whoami');
    expect(whoami.json.host_authority).toBe(true);
  });
});
