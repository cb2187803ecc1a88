// /api/agents refusals on the real gateway (docs/agents.md, docs/errors.md): an unknown agent,
// an invalid name, a name missing, an install while one is there, an upgrade of nothing; each
// with its code and nothing written. Then the agents routes walked in auth mode with a token of
// each scope: reads for read scopes, installs and uninstalls for admins only.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_ACCESS_TABLE } from '../src/protocol/access.js';
import { api, type Gateway, startGateway, tempHome, type TempHome } from './helpers/gateway.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;

beforeAll(async () => {
  home = tempHome();
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

/** Nothing of any agent on disk: no agent file, no state folder. */
function nothingWritten(): void {
  expect(existsSync(join(home.configRoot, 'agents')) ? readdirSync(join(home.configRoot, 'agents')) : []).toEqual([]);
  expect(existsSync(join(home.stateRoot, 'agents')) ? readdirSync(join(home.stateRoot, 'agents')) : []).toEqual([]);
}

describe('bad input to /api/agents', () => {
  it('lists no agent, and the ones svc can install', async () => {
    const list = await api(gw.url, '/api/agents');
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ agents: [], count: 0 });
    expect(list.json.available).toContainEqual({ name: 'pi', kind: 'cli' });
  });

  it.each([
    ['no name', {}, 400, 'agent.name_required'],
    ['an empty name', { name: '' }, 400, 'agent.name_required'],
    ['a path for a name', { name: '../etc' }, 400, 'agent.invalid_name'],
    ['capitals', { name: 'Pi' }, 400, 'agent.invalid_name'],
    ['a name too long', { name: 'a'.repeat(33) }, 400, 'agent.invalid_name'],
    ['an unknown agent', { name: 'opencode' }, 404, 'agent.unknown'],
    ['an unknown field', { name: 'pi', force: true }, 400, 'request.invalid'],
    ['a version that is a flag', { name: 'pi', version: '--registry=http://evil' }, 400, 'request.invalid'],
  ])('install with %s: %i %s, nothing written', async (_what, body, status, code) => {
    const answer = await api(gw.url, '/api/agents/install', { method: 'POST', body });
    expect(answer.status).toBe(status);
    expect(answer.json.error.code).toBe(code);
    nothingWritten();
  });

  it.each([
    ['GET', '/api/agents/opencode', 404, 'agent.unknown'],
    ['GET', '/api/agents/..%2Fetc', 400, 'agent.invalid_name'],
    ['DELETE', '/api/agents/opencode', 404, 'agent.unknown'],
    ['DELETE', '/api/agents/Pi', 400, 'agent.invalid_name'],
    ['GET', '/api/agents/opencode/activity', 404, 'agent.unknown'],
    ['GET', '/api/agents/pi/activity?limit=0', 400, 'request.invalid'],
    ['GET', '/api/agents/pi/activity?limit=501', 400, 'request.invalid'],
    ['GET', '/api/agents/pi/log?phase=../../x', 400, 'request.invalid'],
    ['GET', '/api/agents/pi/log', 409, 'agent.not_installed'],
    ['POST', '/api/agents/pi/upgrade', 409, 'agent.not_installed'],
    ['POST', '/api/agents/opencode/upgrade', 404, 'agent.unknown'],
    ['GET', '/api/agents/jobs/nope', 404, 'agent.job_not_found'],
  ])('%s %s: %i %s, nothing written', async (method, path, status, code) => {
    const answer = await api(gw.url, path, { method });
    expect(answer.status).toBe(status);
    expect(answer.json.error.code).toBe(code);
    nothingWritten();
  });

  it('uninstalling an agent that is not installed says so and removes nothing', async () => {
    const answer = await api(gw.url, '/api/agents/pi', { method: 'DELETE' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ name: 'pi', status: 'not_installed' });
    nothingWritten();
  });

  it('pi with no activity: an empty list and a hint', async () => {
    const answer = await api(gw.url, '/api/agents/pi/activity');
    expect(answer.json).toMatchObject({ agent: 'pi', events: [], count: 0 });
    expect(answer.json.hint).toContain('X-Svc-Agent');
  });

  it('an install while the agent is installed: 409 agent.already_installed, the file untouched', async () => {
    const file = home.write('agents/pi.toml', 'schema_version = 1\n[agent]\nname = "pi"\ninstalled_at = "2026-01-01T00:00:00.000Z"\n');
    const answer = await api(gw.url, '/api/agents/install', { method: 'POST', body: { name: 'pi' } });
    expect(answer.status).toBe(409);
    expect(answer.json.error.code).toBe('agent.already_installed');
    expect(readdirSync(join(home.configRoot, 'agents'))).toEqual(['pi.toml']);
    expect(existsSync(join(home.stateRoot, 'agents'))).toBe(false);
    // Its install is missing: listed as broken, with why.
    const view = (await api(gw.url, '/api/agents/pi')).json;
    expect(view).toMatchObject({ status: 'broken', installed_at: '2026-01-01T00:00:00.000Z' });
    expect(view.problems.join(' ')).toContain('missing');
    const gone = await api(gw.url, '/api/agents/pi', { method: 'DELETE' });
    expect(gone.json.status).toBe('uninstalled');
    expect(existsSync(file)).toBe(false);
  });

  it('an agent file that does not validate is broken, each problem with its field path', async () => {
    home.write('agents/pi.toml', 'schema_version = 1\n[agent]\nname = "pi"\nversion_pin = "yes"\n[mcp.servers.mem]\nurl = "ftp://x"\n');
    const view = (await api(gw.url, '/api/agents/pi')).json;
    expect(view.status).toBe('broken');
    expect(view.problems.join('\n')).toMatch(/agents\/pi\.toml: agent\.version_pin: /);
    expect(view.problems.join('\n')).toMatch(/agents\/pi\.toml: mcp\.servers\.mem\.url: /);
    await api(gw.url, '/api/agents/pi', { method: 'DELETE' });
  });
});

describe('what an agent does through svc is its activity', () => {
  it('a tool call on /mcp/admin/mcp with X-Svc-Agent is a row of that agent; a /v1 request too, failed or not', async () => {
    const client = new Client({ name: 'agents-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/admin/mcp`), { requestInit: { headers: { 'x-svc-agent': 'pi' } } }));
    try {
      await client.callTool({ name: 'slots_list', arguments: {} });
    } finally {
      await client.close();
    }
    // No slot serves this model: a failed request is the agent's too.
    const chat = await api(gw.url, '/v1/chat/completions', { method: 'POST', headers: { 'x-svc-agent': 'pi' }, body: { model: 'nope', messages: [{ role: 'user', content: 'hi' }] } });
    expect(chat.status).toBe(404);
    // Another client's request is nobody's activity.
    await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'nope', messages: [] } });
    const activity = await waitFor(async () => (await api(gw.url, '/api/agents/pi/activity?limit=5')).json, { what: 'two rows of pi', until: (a) => a.count === 2 });
    expect(activity.events).toEqual([
      expect.objectContaining({ tool: 'POST /v1/chat/completions', args: { model: 'nope', stream: false }, gated: false, outcome: 'error', client_id: 'agent:pi' }),
      expect.objectContaining({ tool: 'svc-admin__slots_list', args: {}, gated: false, outcome: 'ok', client_id: expect.stringMatching(/^mcp:/) }),
    ]);
    expect((await api(gw.url, '/api/agents/pi/activity?limit=1')).json.count).toBe(1);
  });
});

describe('the agents routes by scope, in auth mode', () => {
  const SECRET = 'agents-proxy-secret-0123456789abcdef';
  const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
  let authHome: TempHome;
  let auth: Gateway;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    authHome = tempHome({ 'proxy-secret': `${SECRET}\n` });
    auth = await startGateway(authHome.home, { env: { SVC_AUTH_ENABLED: '1' } });
    for (const scope of ['admin', 'all', 'v1-only', 'read-only']) {
      tokens[scope] = (await api(auth.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: `agents-${scope}`, scope } })).json.token;
    }
  }, 60_000);

  afterAll(async () => {
    await auth?.stop();
  });

  const routes = Object.entries(ROUTE_ACCESS_TABLE).filter(([key]) => key.includes('/api/agents'));
  const grants: Record<string, string[]> = { admin: ['read', 'write'], all: ['read'], 'v1-only': [], 'read-only': ['read'] };

  it('has the eight agents routes in the table, and hermes\'s seven (provision, personas)', () => {
    expect(routes.map(([key]) => key).sort()).toEqual([
      'DELETE /api/agents/:name', 'GET /api/agents', 'GET /api/agents/:name', 'GET /api/agents/:name/activity', 'GET /api/agents/:name/log',
      'GET /api/agents/jobs/:id', 'POST /api/agents/:name/upgrade', 'POST /api/agents/install',
      'POST /api/agents/:name/provision', 'GET /api/agents/:name/provision', 'GET /api/agents/:id/personas', 'GET /api/agents/:id/personas/:pid',
      'POST /api/agents/:id/personas/:pid/activate', 'GET /api/agents/:id/personas/:pid/budget', 'PUT /api/agents/:id/personas/:pid/budget',
    ].sort());
  });

  it('grants each scope exactly its classes on every agents route (opencode: no agent, so nothing runs)', async () => {
    const wrong: string[] = [];
    for (const [scope, classes] of Object.entries(grants)) {
      for (const [key, access] of routes) {
        const [method, pattern] = key.split(' ') as [string, string];
        const path = pattern.replace(':name', 'opencode').replace(':id', 'nope');
        const answer = await api(auth.url, path, { method, headers: { authorization: `Bearer ${tokens[scope]}` }, ...(method === 'POST' && { body: { name: 'opencode' } }) });
        const refused = answer.status === 403 && answer.json?.error?.code === 'auth.forbidden';
        if (classes.includes(access) === refused) wrong.push(`${scope}: ${key} answered ${answer.status} ${answer.json?.error?.code ?? ''}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(existsSync(join(authHome.stateRoot, 'agents'))).toBe(false);
  }, 60_000);

  it('uninstalling an agent revokes its agent-<name> token: it no longer opens /v1, the other tokens still do', async () => {
    // The token an install would mint, and a broken install of pi (its file, no package).
    const minted = (await api(auth.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: 'agent-pi', scope: 'v1-only' } })).json.token as string;
    // A chat for a model nobody serves: 404 past the guard with a good token, 401 at it with a revoked one.
    const chat = async (token: string) => (await api(auth.url, '/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: { model: 'nope', messages: [{ role: 'user', content: 'hi' }] } })).status;
    expect(await chat(minted)).toBe(404);
    authHome.write('agents/pi.toml', 'schema_version = 1\n[agent]\nname = "pi"\n');
    const gone = await api(auth.url, '/api/agents/pi', { method: 'DELETE', headers: proxy });
    expect(gone.json).toMatchObject({ status: 'uninstalled', tokens_revoked: 1 });
    expect(await chat(minted)).toBe(401);
    expect(await chat(tokens['v1-only']!)).toBe(404);
    const labels = ((await api(auth.url, '/api/auth/tokens', { headers: proxy })).json.tokens as Array<{ label: string }>).map((t) => t.label);
    expect(labels).not.toContain('agent-pi');
    expect(labels).toContain('agents-v1-only');
  });
});

const lanSkip = lanSkipReason();

describe.skipIf(lanSkip)(`installing runs npm on the host: a LAN client may not, in default mode ${lanSkip ?? ''}`, () => {
  let lanHome: TempHome;
  let lanGateway: Gateway;
  let lan: Lan;

  beforeAll(async () => {
    lanHome = tempHome();
    [lanGateway, lan] = await Promise.all([startGateway(lanHome.home, { args: ['--host', '0.0.0.0'] }), openLan()]);
  }, 60_000);

  afterAll(async () => {
    lan?.close();
    await lanGateway?.stop();
  });

  it('install, upgrade and uninstall from the LAN: 403 config.host_only, nothing written; reads are open', async () => {
    const from = (method: string, path: string, body?: unknown) => lan.request(`${lan.url(lanGateway.port)}${path}`, { method, ...(body !== undefined && { body }) });
    for (const [method, path, body] of [['POST', '/api/agents/install', { name: 'pi' }], ['POST', '/api/agents/pi/upgrade', {}], ['DELETE', '/api/agents/pi', undefined]] as const) {
      const answer = await from(method, path, body);
      expect([answer.status, answer.json?.error?.code], `${method} ${path}`).toEqual([403, 'config.host_only']);
    }
    expect((await from('GET', '/api/agents')).status).toBe(200);
    expect(existsSync(join(lanHome.stateRoot, 'agents'))).toBe(false);
    expect(existsSync(join(lanHome.configRoot, 'agents'))).toBe(false);
  });
});
