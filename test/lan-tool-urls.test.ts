// Tool server URLs from a LAN client in default mode (docs/auth.md, "Tool server URLs"): only
// a host in [mcp].allowed_hosts, never one that is or resolves to loopback, link-local,
// unspecified or this gateway's own listener, even when listed; a refusal is 403
// config.host_only naming the field and writes nothing. A listed host serves; its redirect
// into this host is not followed; and a listed name is checked again on every connection.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, type TempHome, tempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { type SecretService, type Service, startMcpHttp, startSecretService } from './helpers/tool-url-fixtures.js';
import { waitFor } from './helpers/wait.js';

const skip = lanSkipReason();

let home: TempHome;
let gw: Gateway;
let lan: Lan;
let internal: SecretService;
let allowed: Service & { redirect: { to: string } };
const fromLan = (path: string, init: { method?: string; body?: unknown } = {}) => lan.request(`${lan.url(gw.port)}${path}`, init);
const recordsDir = () => join(home.configRoot, 'mcp-servers');

beforeAll(async () => {
  if (skip) return;
  lan = await openLan();
  internal = await startSecretService();
  // A tool server on another machine as the gateway sees it: an address of this host's LAN side.
  allowed = await startMcpHttp(lan.hostAddress);
  // Listed, and refused all the same: names and literals of this host's own addresses.
  const listed = [lan.hostAddress, 'localhost', '127.0.0.1', '169.254.169.254', '0.0.0.0', '[::ffff:127.0.0.1]', '[fe80::1]'];
  home = tempHome({ 'svc.toml': `[mcp]\nping_interval_s = 0\nrestart_max = 1\nallowed_hosts = ${JSON.stringify(listed)}\n` });
  gw = await startGateway(home.home, { args: ['--host', '0.0.0.0'] });
});
afterAll(async () => {
  lan?.close();
  await gw?.stop();
  internal?.close();
  allowed?.close();
});

describe.skipIf(skip)(`tool server URLs from the LAN ${skip ?? ''}`, () => {
  it('refuses a URL off the list, or into this host even when listed, and writes nothing', async () => {
    const loopback = `http://127.0.0.1:${internal.port}/mcp`;
    for (const [body, key] of [
      [{ url: 'http://10.250.250.250:9/mcp' }, 'url'],
      [{ url: loopback }, 'url'],
      [{ spec: `http://localhost:${internal.port}/mcp` }, 'spec'],
      [{ url: `http://[::ffff:127.0.0.1]:${internal.port}/mcp` }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ url: `http://0.0.0.0:${internal.port}/mcp` }, 'url'],
      [{ url: 'http://[fe80::1]:9/mcp' }, 'url'],
      [{ url: `http://${lan.hostAddress}:${gw.port}/api/updates/rollback` }, 'url'],
      [{ manifest: { id: 'm', transport: 'streamable-http', url: loopback } }, 'manifest.url'],
    ] as const) {
      const refused = await fromLan('/api/mcp/install', { method: 'POST', body: { id: 'x', ...body } });
      expect([refused.status, refused.json?.error?.code], JSON.stringify(body)).toEqual([403, 'config.host_only']);
      expect(refused.json.error.details.keys, JSON.stringify(body)).toEqual([key]);
    }
    expect(existsSync(recordsDir())).toBe(false);
    expect(internal.hits()).toBe(0);
    const rows = (await api(gw.url, '/api/activity?action=mcp.install&outcome=error')).json.items;
    expect(rows[0].details).toMatchObject({ code: 'config.host_only', refused: ['manifest.url'], client: lan.clientAddress });
  }, 60_000);

  it('refuses a URL patch into this host and leaves the record as it was', async () => {
    expect((await api(gw.url, '/api/mcp/install', { method: 'POST', body: { url: `${allowed.base}/mcp`, id: 'patched', enabled: false } })).status).toBe(201);
    const before = readFileSync(join(recordsDir(), 'patched.toml'), 'utf8');
    const refused = await fromLan('/api/mcp/patched/config', { method: 'PATCH', body: { url: `http://localhost:${internal.port}/mcp` } });
    expect([refused.status, refused.json?.error?.code, refused.json?.error?.details?.keys]).toEqual([403, 'config.host_only', ['url']]);
    expect(readFileSync(join(recordsDir(), 'patched.toml'), 'utf8')).toBe(before);
    expect((await fromLan('/api/mcp/patched/config', { method: 'PATCH', body: { url: `${allowed.base}/mcp/` } })).status).toBe(200);
  }, 30_000);

  it('refuses a persona reload URL (always one on this host)', async () => {
    const refused = await fromLan('/api/agents/hermes/personas/hermes/activate', { method: 'POST', body: { reload_url: `http://127.0.0.1:${internal.port}/api/ws` } });
    expect([refused.status, refused.json?.error?.code, refused.json?.error?.details?.keys]).toEqual([403, 'config.host_only', ['reload_url']]);
    expect(internal.hits()).toBe(0);
  });

  it('serves a tool server on a listed LAN host', async () => {
    const installed = await fromLan('/api/mcp/install', { method: 'POST', body: { url: `${allowed.base}/mcp`, id: 'lan-tools' } });
    expect(installed.status, installed.text).toBe(201);
    await waitFor(async () => (await api(gw.url, '/api/mcp/servers/lan-tools')).json, { what: 'lan-tools ready', until: (v) => v.state === 'ready' });
    const tested = await fromLan('/api/mcp/lan-tools/test', { method: 'POST' });
    expect(tested.json).toMatchObject({ ok: true, server_version: 'lan-fixture 1.0.0', tools: [{ name: 'echo' }] });
  }, 30_000);

  it('does not follow a listed host\'s redirect into this host', async () => {
    allowed.redirect.to = `http://127.0.0.1:${internal.port}/mcp`;
    const installed = await fromLan('/api/mcp/install', { method: 'POST', body: { url: `${allowed.base}/redirect`, id: 'redirected' } });
    expect(installed.status, installed.text).toBe(201);
    const view = await waitFor(async () => (await api(gw.url, '/api/mcp/servers/redirected')).json, { what: 'redirected in error', until: (v) => v.state === 'error' });
    expect(view.last_error).toContain('HTTP 307');
    expect(internal.hits()).toBe(0);
  }, 30_000);

  it('checks every connection to a listed name, whoever installed the URL (DNS rebinding)', async () => {
    // From this host the install passes; the connection, to loopback through the listed name, does not.
    const installed = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { url: `http://localhost:${internal.port}/mcp`, id: 'rebound' } });
    expect(installed.status, installed.text).toBe(201);
    const view = await waitFor(async () => (await api(gw.url, '/api/mcp/servers/rebound')).json, { what: 'rebound in error', until: (v) => v.state === 'error' && v.last_error !== null });
    expect(view.last_error).toMatch(/refused: .* is a loopback address of this host/);
    expect(internal.hits()).toBe(0);
  }, 30_000);
});
