// omni: true in auth mode: the tools offered are those the token's scope allows (read tools
// for a scope with read, the rest only with write), and a tool the scope does not allow is
// not offered and cannot be called: a model that names it anyway gets the refusal as the
// tool's result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { FIXTURE_SERVER } from './helpers/mcp.js';
import { startScriptedUpstream, type ScriptedUpstream } from './helpers/scripted-upstream.js';
import { waitFor } from './helpers/wait.js';

const SECRET = 'omni-auth-test-proxy-secret-0123456789';
const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
let gw: Gateway;
let upstream: ScriptedUpstream;
const tokens: Record<string, string> = {};
/** The fixture server's tools as it lists them: name and whether it is read-only. */
let listed: Array<{ name: string; read_only: boolean }>;

beforeAll(async () => {
  upstream = await startScriptedUpstream({ adder: { rounds: [{ tool_calls: [{ name: 'fixture__add', arguments: { a: 1, b: 2 } }] }, { content: 'done' }] } });
  const home = tempHome({
    'proxy-secret': SECRET,
    'upstreams.toml': upstream.toml('script'),
    'mcp-servers/fixture.toml': `name = "fixture"\ntransport = "stdio"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE_SERVER)}]\n\n[tools]\n`,
  });
  gw = await startGateway(home.home, { env: { SVC_AUTH_ENABLED: '1' } });
  for (const scope of ['all', 'admin']) {
    const created = await api(gw.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: `omni-${scope}`, scope } });
    expect(created.status, created.text).toBe(201);
    tokens[scope] = created.json.token as string;
  }
  await waitFor(async () => (await api(gw.url, '/api/mcp/servers', { headers: proxy })).json?.servers?.find((s: { id: string }) => s.id === 'fixture')?.state, {
    what: 'the fixture tool server to be ready', timeout: 30_000, interval: 200, until: (state) => state === 'ready',
  });
  listed = (await api(gw.url, '/api/mcp/servers/fixture', { headers: proxy })).json.tool_details;
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  upstream?.stop();
});

async function omniAs(scope: string) {
  await upstream.forget();
  const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${tokens[scope]}` }, body: { model: 'adder', omni: true, messages: [{ role: 'user', content: 'add' }] } });
  expect(answer.status, answer.text).toBe(200);
  const requests = await upstream.requests();
  const offered = (requests[0]!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).filter((n) => n.startsWith('fixture__'));
  return { answer, offered, requests };
}

describe('omni in auth mode', () => {
  it('offers a token with read but not write only the read-only tools, and refuses the others', async () => {
    const { answer, offered, requests } = await omniAs('all');
    const readOnly = listed.filter((t) => t.read_only).map((t) => `fixture__${t.name}`).sort();
    expect(readOnly).toContain('fixture__echo');
    expect(offered.sort()).toEqual(readOnly);
    expect(answer.json.svc_omni.tool_calls).toEqual([expect.objectContaining({ name: 'fixture__add', ok: false })]);
    const result = (requests[1]!.messages as Array<{ role: string; content: string }>).at(-1)!;
    expect(result.role).toBe('tool');
    expect(result.content).toMatch(/^Error: /);
    expect(result.content).not.toContain('3');
  });

  it('offers an admin token every allowed tool, and runs them', async () => {
    const { answer, offered, requests } = await omniAs('admin');
    expect(offered.sort()).toEqual(listed.map((t) => `fixture__${t.name}`).sort());
    expect(offered).toContain('fixture__add');
    expect(answer.json.svc_omni.tool_calls).toEqual([expect.objectContaining({ name: 'fixture__add', ok: true })]);
    expect((requests[1]!.messages as Array<{ content: string }>).at(-1)!.content).toBe('3');
  });
});
