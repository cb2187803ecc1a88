// Personas of hermes over a real gateway and the CLI: the three seeds (written by the
// persona_seed phase with the stand-in runtime), activate writing active.txt and reporting
// the hot-reload nudge (a tiny listener here as the agent's reload endpoint, and a port with
// nothing listening), the budget, and persona ids that would leave the folder.
import { createServer, type Server } from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, REPO_ROOT, runSvcAsync, startGateway, type TempHome, tempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

let home: TempHome;
let gw: Gateway;
let reload: Server;
let reloadUrl: string;
const nudges: unknown[] = [];
const personasDir = () => join(home.stateRoot, 'agents/hermes/data/personas');
const svc = (args: string[]) => runSvcAsync(['agent', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });

beforeAll(async () => {
  home = tempHome({ 'svc.toml': '[memory]\nenabled = false\n' });
  gw = await startGateway(home.home, { env: { SVC_HERMES_RUNTIME: join(REPO_ROOT, 'test/fixtures/hermes-runtime.mjs') } });
  // No chat slot here: model_automap fails (non-fatal); the personas are seeded all the same.
  const seeded = await api(gw.url, '/api/agents/hermes/provision', { method: 'POST', body: { skip_phases: ['model_automap', 'smoke_tests'] } });
  expect(seeded.status, seeded.text).toBe(200);
  expect(seeded.json.provision.phases.persona_seed.status).toBe('ok');
  reload = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      nudges.push({ url: request.url, body: JSON.parse(body) });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{"ok":true}}');
    });
  });
  await new Promise<void>((resolve) => reload.listen(0, '127.0.0.1', resolve));
  reloadUrl = `http://127.0.0.1:${(reload.address() as { port: number }).port}/api/ws`;
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  reload?.close();
});

describe('hermes personas', () => {
  it('lists the three seeds with hermes active', async () => {
    const run = await svc(['personas', 'list']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\*\s+hermes\s+Hermes/);
    const listed = await api(gw.url, '/api/agents/hermes/personas');
    expect(listed.json).toMatchObject({ agent: 'hermes', active: 'hermes', count: 3 });
    expect(listed.json.personas.map((p: { id: string }) => p.id)).toEqual(['coder', 'hermes', 'svc-brain']);
    const shown = await svc(['personas', 'show', 'svc-brain']);
    expect(JSON.parse(shown.stdout).persona).toMatchObject({ id: 'svc-brain', approval: { default_policy: 'ask', require_approval: ['files.*', 'shell.*', 'admin.*'] }, model: { preferred_upstream: 'svc' } });
  });

  it('activate writes active.txt and nudges the agent to reload', async () => {
    const run = await svc(['personas', 'activate', 'coder', '--reload-url', reloadUrl, '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ persona_id: 'coder', display_name: 'Coder', active_path: join(personasDir(), 'active.txt'), hot_reload: { ok: true, error: null, url: reloadUrl } });
    expect(readFileSync(join(personasDir(), 'active.txt'), 'utf8')).toBe('coder\n');
    expect(nudges).toEqual([{ url: '/api/ws', body: { jsonrpc: '2.0', id: 1, method: 'reload.env', params: {} } }]);
  });

  it('a nudge to nothing listening is reported, and the persona is active anyway', async () => {
    const closed = `http://127.0.0.1:${await freePort()}/api/ws`;
    const answer = await api(gw.url, '/api/agents/hermes/personas/svc-brain/activate', { method: 'POST', body: { reload_url: closed } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.hot_reload).toEqual({ ok: false, error: expect.stringContaining('ECONNREFUSED'), url: closed });
    expect(readFileSync(join(personasDir(), 'active.txt'), 'utf8')).toBe('svc-brain\n');
    const text = await svc(['personas', 'activate', 'hermes', '--reload-url', closed]);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('reload nudge failed');
  });

  it('the budget: read, set, validated', async () => {
    const path = '/api/agents/hermes/personas/coder/budget';
    expect((await api(gw.url, path)).json).toEqual({ persona_id: 'coder', budget: { hard_cap: true } });
    const put = await api(gw.url, path, { method: 'PUT', body: { daily_usd: 2.5, monthly_usd: 40, hard_cap: false } });
    expect(put.json).toEqual({ persona_id: 'coder', budget: { daily_usd: 2.5, monthly_usd: 40, hard_cap: false } });
    expect(readFileSync(join(personasDir(), 'coder.toml'), 'utf8')).toContain('daily_usd = 2.5');
    const bad = await api(gw.url, path, { method: 'PUT', body: { daily_usd: -1 } });
    expect(bad.json.error.code).toBe('request.invalid');
  });

  it('bad persona ids, unknown personas and agents, a reload URL off this host: each its code, nothing written', async () => {
    const before = readdirSync(personasDir()).map((f) => `${f}:${readFileSync(join(personasDir(), f), 'utf8')}`);
    for (const pid of ['..%2F..%2Fetc%2Fpasswd', 'a.b', '%2Ftmp%2Fx', '...hidden', 'UPPER']) {
      const answer = await api(gw.url, `/api/agents/hermes/personas/${pid}/activate`, { method: 'POST', body: {} });
      expect([answer.status, answer.json.error.code], pid).toEqual([400, 'agent.persona_invalid']);
    }
    const cli = await svc(['personas', 'activate', '../../x']);
    expect(cli.status).toBe(1);
    expect(cli.stderr).toContain('agent.persona_invalid');
    const missing = await api(gw.url, '/api/agents/hermes/personas/nobody/activate', { method: 'POST', body: {} });
    expect([missing.status, missing.json.error.code]).toEqual([404, 'agent.persona_not_found']);
    const agent = await api(gw.url, '/api/agents/nosuch/personas');
    expect([agent.status, agent.json.error.code]).toEqual([404, 'agent.unknown']);
    const away = await api(gw.url, '/api/agents/hermes/personas/coder/activate', { method: 'POST', body: { reload_url: 'http://192.0.2.1/api/ws' } });
    expect([away.status, away.json.error.code]).toEqual([400, 'request.invalid']);
    expect(readdirSync(personasDir()).map((f) => `${f}:${readFileSync(join(personasDir(), f), 'utf8')}`)).toEqual(before);
    expect(existsSync(join(home.stateRoot, 'agents/etc'))).toBe(false);
  });
});
