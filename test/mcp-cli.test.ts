// `svc mcp …` and `svc agent approvals …` against a real gateway (dist/bin/svc.js): a stdio
// fixture server installed from a command line, listed, inspected, restarted, its logs, the
// bundled server refused, the catalog listed and refreshed from a local server that speaks
// the MCP Registry's API, and uninstalled.
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runSvcAsync, useTempGateways } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const { home, gateway } = useTempGateways(afterEach);
const FIXTURE = join(REPO_ROOT, 'test/fixtures/mcp-fixture-server.mjs');
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A registry answering GET /v0/servers with one npm server, as the official registry's API does. */
async function registry(): Promise<string> {
  const server = createServer((request, response) => {
    if (!request.url?.startsWith('/v0/servers')) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      servers: [{
        server: {
          name: 'io.github.example/weather',
          description: 'Weather forecasts for a city',
          version: '1.2.0',
          repository: { url: 'https://github.com/example/weather-mcp', source: 'github' },
          packages: [{ registryType: 'npm', identifier: '@example/weather-mcp', version: '1.2.0', transport: { type: 'stdio' } }],
        },
        _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true } },
      }],
      metadata: { count: 1 },
    }));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

describe('svc mcp and svc agent approvals', () => {
  it('installs, lists, inspects, restarts, shows logs of and uninstalls a tool server', async () => {
    const registryUrl = await registry();
    const h = home({ 'svc.toml': `[mcp]\nregistry_url = "${registryUrl}"\n` });
    const gw = await gateway(h);
    const svc = (...args: string[]) => runSvcAsync(args, { home: h.home, env: { SVC_API_URL: gw.url } });

    const installed = await svc('mcp', 'install', '--id', 'fixture', '--', process.execPath, FIXTURE);
    expect(installed.stderr).toBe('');
    expect(installed.status).toBe(0);
    expect(installed.stdout).toMatch(/^installed tool server fixture \(mcp-servers\/fixture\.toml\): stdio, /);

    const status = await waitFor(async () => JSON.parse((await svc('mcp', 'status', 'fixture', '--json')).stdout), { what: 'the fixture to be ready', until: (s) => s.state === 'ready', timeout: 30_000 });
    expect(status.tool_details.map((t: { name: string }) => t.name)).toContain('echo');
    const text = await svc('mcp', 'status', 'fixture');
    expect(text.stdout).toMatch(/^server +fixture$/m);
    expect(text.stdout).toMatch(/^echo +allow +read /m);

    const list = await svc('mcp', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^ID +TRANSPORT +STATE +PID +RESTARTS +TOOLS +CONNECT$/);
    expect(list.stdout).toMatch(/^fixture +stdio +ready +\d+ /m);
    expect(list.stdout).toMatch(/^svc-admin +bundled +ready /m);
    const listJson = JSON.parse((await svc('mcp', 'list', '--json')).stdout);
    expect(listJson.count).toBe(listJson.servers.length);

    const restarted = await svc('mcp', 'restart', 'fixture');
    expect(restarted.status).toBe(0);
    expect(restarted.stdout).toMatch(/^tool server fixture is ready \(pid \d+\)$/m);
    const logs = JSON.parse((await svc('mcp', 'logs', 'fixture', '--json', '-n', '10')).stdout);
    expect(logs.server_id).toBe('fixture');

    const bundled = await svc('mcp', 'uninstall', 'svc-admin');
    expect(bundled.status).toBe(1);
    expect(bundled.stderr).toMatch(/^svc: mcp\.bundled: /);

    const catalog = await svc('mcp', 'catalog', 'list', '--json');
    expect(JSON.parse(catalog.stdout).items.some((i: { spec: string }) => i.spec === 'npm:@modelcontextprotocol/server-everything')).toBe(true);
    const refreshed = await svc('mcp', 'catalog', 'refresh');
    expect(refreshed.stderr).toBe('');
    expect(refreshed.stdout).toContain('npm:@example/weather-mcp');
    expect(refreshed.stdout).toMatch(/^registry part refreshed: \d{4}-/m);

    const removed = await svc('mcp', 'uninstall', 'fixture', '--force');
    expect(removed.status).toBe(0);
    expect(removed.stdout).toBe('uninstalled tool server fixture\n');
    const gone = await svc('mcp', 'status', 'fixture');
    expect(gone.status).toBe(1);
    expect(gone.stderr).toMatch(/^svc: mcp\.not_found: /);
  }, 120_000);

  it('lists an empty approvals queue and refuses a decision on an unknown id', async () => {
    const h = home();
    const gw = await gateway(h);
    const svc = (...args: string[]) => runSvcAsync(args, { home: h.home, env: { SVC_API_URL: gw.url } });
    expect((await svc('agent', 'approvals', 'list')).stdout).toBe('no calls are waiting for approval\n');
    expect(JSON.parse((await svc('agent', 'approvals', 'list', '--json')).stdout)).toEqual({ approvals: [] });
    const unknown = await svc('agent', 'approvals', 'approve', 'nope');
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^svc: approvals\.not_found: /);
  });
});
