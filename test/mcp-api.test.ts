// /api/mcp on the real gateway: a real tool server from npm installed through the API,
// supervised (SIGKILL and it is back), tested, logged and uninstalled; a server that exits at
// once hits the crash-loop cap with its stderr in last_error; the bundled svc-admin cannot be
// uninstalled; and bad input is refused with its path, nothing written.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, useTempGateways, type Gateway } from './helpers/gateway.js';
import { lanSkipReason, openLan } from './helpers/lan.js';
import { waitFor } from './helpers/wait.js';

const { home, gateway } = useTempGateways(afterEach);
const lanSkip = lanSkipReason();

/** Small supervisor figures, so the crash-loop cap is reached in a few quick restarts. */
const FAST_MCP = '[mcp]\nrestart_max = 2\nrestart_window_s = 60\n';

const server = async (gw: Gateway, id: string) => (await api(gw.url, `/api/mcp/servers/${id}`)).json;

describe('tool servers over /api/mcp', () => {
  it('installs server-everything from npm, supervises it, tests it, shows its logs and uninstalls it', async () => {
    const h = home({ 'svc.toml': FAST_MCP });
    const gw = await gateway(h);

    const installed = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { spec: 'npm:@modelcontextprotocol/server-everything', id: 'everything' } });
    expect(installed.status, installed.text).toBe(201);
    expect(installed.json).toMatchObject({ id: 'everything', transport: 'stdio', bundled: false, enabled: true, spec: 'npm:@modelcontextprotocol/server-everything' });
    expect(existsSync(join(h.configRoot, 'mcp-servers', 'everything.toml'))).toBe(true);

    // Its tools are the server's own answer to tools/list.
    const ready = await waitFor(() => server(gw, 'everything'), { what: 'everything to be ready with its tools', until: (s) => s.state === 'ready' && s.tool_details.length > 0, timeout: 60_000 });
    const names = ready.tool_details.map((t: { name: string }) => t.name);
    expect(names).toContain('echo');
    expect(ready.pid).toBeGreaterThan(0);
    expect(ready.tool_details.find((t: { name: string }) => t.name === 'echo')).toMatchObject({ policy: 'allow', input_schema: { type: 'object' } });

    const tested = await api(gw.url, '/api/mcp/everything/test', { method: 'POST' });
    expect(tested.status, tested.text).toBe(200);
    expect(tested.json).toMatchObject({ server_id: 'everything', ok: true, transport: 'stdio', error: null });
    expect(tested.json.tools.map((t: { name: string }) => t.name)).toContain('echo');

    // SIGKILL: the supervisor sees the exit and starts it again, as mcp.state events say.
    const since = (await api(gw.url, '/api/events?type=mcp.state')).json.next_since;
    process.kill(ready.pid, 'SIGKILL');
    const back = await waitFor(() => server(gw, 'everything'), { what: 'everything to be restarted', until: (s) => s.state === 'ready' && s.pid !== ready.pid && s.pid !== null, timeout: 60_000 });
    expect(back.restarts).toBeGreaterThanOrEqual(1);
    const states = (await api(gw.url, `/api/events?type=mcp.state&since=${since}`)).json.events.map((e: { data: { server: string; to: string } }) => e.data);
    expect(states.filter((s: { server: string }) => s.server === 'everything').map((s: { to: string }) => s.to)).toEqual(expect.arrayContaining(['starting', 'ready']));

    const logs = await api(gw.url, '/api/mcp/everything/logs?lines=5');
    expect(logs.status).toBe(200);
    expect(logs.json.server_id).toBe('everything');
    expect(Array.isArray(logs.json.lines)).toBe(true);
    expect(logs.json.lines.length).toBeLessThanOrEqual(5);

    const removed = await api(gw.url, '/api/mcp/everything', { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    expect((await api(gw.url, '/api/mcp/servers/everything')).json.error.code).toBe('mcp.not_found');
    expect(existsSync(join(h.configRoot, 'mcp-servers', 'everything.toml'))).toBe(false);
    expect(existsSync(join(h.stateRoot, 'mcp', 'everything'))).toBe(false);
    // Its process is gone with it.
    await waitFor(() => { try { process.kill(back.pid, 0); return false; } catch { return true; } }, { what: 'the server process to exit' });
  }, 240_000);

  it('a server that exits at once hits the crash-loop cap with its stderr in last_error', async () => {
    const h = home({ 'svc.toml': FAST_MCP });
    const gw = await gateway(h);
    const spec = `${JSON.stringify(process.execPath)} -e "console.error('fixture: no config file, giving up'); process.exit(1)"`;
    const installed = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { spec, id: 'quitter' } });
    expect(installed.status, installed.text).toBe(201);
    const failed = await waitFor(() => server(gw, 'quitter'), { what: 'quitter to hit the crash-loop cap', until: (s) => s.state === 'error', timeout: 60_000 });
    expect(failed.last_error).toContain('fixture: no config file, giving up');
    expect(failed.pid).toBeNull();
    const logs = await api(gw.url, '/api/mcp/quitter/logs');
    expect(logs.json.lines.join('\n')).toContain('fixture: no config file, giving up');
    const errors = (await api(gw.url, '/api/events?type=mcp.state')).json.events.filter((e: { data: { server: string; to: string } }) => e.data.server === 'quitter' && e.data.to === 'error');
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors[0].severity).toBe('error');
  }, 120_000);

  it('lists the bundled svc-admin server, which cannot be uninstalled or stopped', async () => {
    const gw = await gateway(home());
    const list = await api(gw.url, '/api/mcp/servers');
    expect(list.status).toBe(200);
    const admin = list.json.servers.find((s: { id: string }) => s.id === 'svc-admin');
    expect(admin).toMatchObject({ bundled: true, state: 'ready', transport: 'streamable-http' });
    expect(admin.tool_details.map((t: { name: string }) => t.name).sort()).toEqual(
      ['activity_query', 'model_pull', 'models_list', 'settings_read', 'slot_load', 'slot_restart', 'slot_unload', 'slots_list', 'status'],
    );
    expect(admin.tool_details.find((t: { name: string }) => t.name === 'slots_list').read_only).toBe(true);
    expect(list.json.count).toBe(list.json.servers.length);

    const uninstall = await api(gw.url, '/api/mcp/svc-admin', { method: 'DELETE' });
    expect(uninstall.status).toBe(409);
    expect(uninstall.json.error.code).toBe('mcp.bundled');
    expect((await api(gw.url, '/api/mcp/svc-admin/stop', { method: 'POST' })).json.error.code).toBe('mcp.bundled');
    expect((await api(gw.url, '/api/mcp/catalog')).json.items.some((i: { spec: string }) => i.spec === 'npm:@modelcontextprotocol/server-everything')).toBe(true);
  });

  it('refuses bad input with its path and writes nothing', async () => {
    const h = home();
    const gw = await gateway(h);
    const dir = join(h.configRoot, 'mcp-servers');

    const notASpec = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { spec: 'ftp://example.com/server' } });
    expect(notASpec.status).toBe(400);
    expect(notASpec.json.error.code).toBe('mcp.invalid_spec');
    expect(notASpec.json.error.details.problems[0].path).toBe('spec');

    const two = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { spec: 'npm:x', url: 'http://127.0.0.1:9/mcp' } });
    expect(two.status).toBe(400);
    expect(two.json.error.code).toBe('request.invalid');

    const traversal = await api(gw.url, '/api/mcp/install', { method: 'POST', body: { url: 'http://127.0.0.1:9/mcp', id: '../escape', enabled: false } });
    expect(traversal.status).toBe(400);
    expect(traversal.json.error.code).toBe('mcp.invalid_id');
    expect((await api(gw.url, '/api/mcp/servers/..%2Fescape')).json.error.code).toBe('mcp.invalid_id');
    expect((await api(gw.url, '/api/mcp/..%2F..%2Fsvc', { method: 'DELETE' })).json.error.code).toBe('mcp.invalid_id');

    const overlap = await api(gw.url, '/api/mcp/svc-admin/tools', { method: 'PATCH', body: { allow: ['status', 'slots_list'], gated: ['slots_list'] } });
    expect(overlap.status).toBe(400);
    expect(overlap.json.error.code).toBe('config.invalid');
    const paths = overlap.json.error.details.problems.map((p: { path: string }) => p.path);
    expect(paths.some((p: string) => /gated\[0\]|allow\[1\]/.test(p))).toBe(true);

    const secret = await api(gw.url, '/api/mcp/install', {
      method: 'POST',
      body: { manifest: { id: 'keyed', transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp', secrets: { API_KEY: 'NO_SUCH_KEY' }, enabled: false } },
    });
    expect(secret.status).toBe(400);
    expect(secret.json.error.code).toBe('config.invalid');
    expect(JSON.stringify(secret.json.error.details.problems)).toContain('secrets.API_KEY');

    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });
});

describe.skipIf(lanSkip)(`running a program on the host is host-only ${lanSkip ?? ''}`, () => {
  it('refuses a LAN client in default mode a stdio install, a stdio env change and a URL into this host', async () => {
    const h = home();
    const gw = await gateway(h, { args: ['--host', '0.0.0.0'] });
    const lan = await openLan();
    try {
      const url = lan.url(gw.port);
      const install = (body: unknown) => lan.request(`${url}/api/mcp/install`, { method: 'POST', body });
      for (const [body, keys] of [
        [{ spec: 'npm:@modelcontextprotocol/server-everything' }, ['spec']],
        [{ spec: 'node -e "process.exit(0)"', id: 'shell' }, ['spec']],
        [{ manifest: { id: 'local', transport: 'stdio', command: 'node', args: ['x.mjs'] } }, ['manifest.command', 'manifest.args']],
      ] as const) {
        const refused = await install(body);
        expect(refused.status, JSON.stringify(body)).toBe(403);
        expect(refused.json.error).toMatchObject({ code: 'config.host_only', details: { keys } });
      }
      expect(existsSync(join(h.configRoot, 'mcp-servers'))).toBe(false);
      const rows = (await api(gw.url, '/api/activity?action=mcp.install&outcome=error')).json.items;
      expect(rows[0].details).toMatchObject({ code: 'config.host_only', client: lan.clientAddress });

      // A URL server makes svc connect out: into this host it is the host's alone (lan-tool-urls.test.ts has the rest).
      const loopback = await install({ url: 'http://127.0.0.1:9/mcp', id: 'remote', enabled: false });
      expect([loopback.status, loopback.json.error.details.keys]).toEqual([403, ['url']]);
      expect((await api(gw.url, '/api/mcp/install', { method: 'POST', body: { url: 'http://127.0.0.1:9/mcp', id: 'remote', enabled: false } })).status).toBe(201);

      // Installed from this host, a stdio server's env stays this host's to change.
      const fixture = `${process.execPath} ${join(REPO_ROOT, 'test/fixtures/mcp-fixture-server.mjs')}`;
      expect((await api(gw.url, '/api/mcp/install', { method: 'POST', body: { spec: fixture, id: 'fixture', enabled: false } })).status).toBe(201);
      const env = await lan.request(`${url}/api/mcp/fixture/config`, { method: 'PATCH', body: { env: { DEBUG: '1' } } });
      expect(env.status).toBe(403);
      expect(env.json.error.details.keys).toEqual(['env']);
      expect((await lan.request(`${url}/api/mcp/fixture/tools`, { method: 'PATCH', body: { gated: ['add'] } })).status).toBe(200);
      expect((await lan.request(`${url}/api/mcp/remote/config`, { method: 'PATCH', body: { enabled: false } })).status).toBe(200);
      expect((await lan.request(`${url}/api/mcp/remote/config`, { method: 'PATCH', body: { url: 'http://127.0.0.1:10/mcp' } })).status).toBe(403);
    } finally {
      lan.close();
    }
  }, 60_000);
});
