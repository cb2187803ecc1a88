// The bundled svc-memory server at /mcp/memory/mcp, driven by the MCP SDK's own client over
// streamable HTTP against a real gateway: the embedded pgvector engine, the built-in engine's
// embedding slot and an llm slot on the tiny model. Its tools act as the request's X-Svc-Agent:
// one agent's private item is invisible to another; memory_delete waits in the approvals queue
// until it is approved; memory_reflect answers through the llm; the activity rows of its calls
// keep the stored text and metadata out. With memory off it offers nothing.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, type TempHome, useTempGateways } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

// The first write starts the embedded database: on a loaded machine longer than the default
// [mcp].tool_timeout_s (60 s), so the gateway waits as long as the client does (call() below).
const MEMORY_TOML = '[memory]\nengine = "pgvector"\n\n[mcp]\ntool_timeout_s = 170\n';
let home: TempHome;
let gw: Gateway;
const clients: Client[] = [];
const temp = useTempGateways(afterEach);

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }, { name: 'chat', provider: 'builtin' }]);
  home.write('svc.toml', MEMORY_TOML);
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await gw?.stop();
});

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp/memory/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');
/** A tool's JSON answer; a tool error fails the test with its text. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ReturnType<typeof JSON.parse>> {
  // The first write starts the embedded database (initdb) and the embedding slot: on a loaded
  // machine that can take longer than the SDK's default 60 s request timeout.
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 170_000 });
  expect(result.isError, textOf(result)).toBeFalsy();
  return JSON.parse(textOf(result));
}

const SHARED = 'the lighthouse keeper paints the door teal every spring';
const SECRET = "alice's locker code is 4471 and nobody else may know it";

describe('svc-memory over MCP', () => {
  it('lists its tools, adds, searches, recalls and curates as the caller, and keeps private items private', async () => {
    const alice = await connect(gw.url, { 'x-svc-agent': 'alice' });
    expect(alice.getServerVersion()?.name).toBe('svc-memory');
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['memory_add', 'memory_curate', 'memory_delete', 'memory_history', 'memory_list', 'memory_recall', 'memory_reflect', 'memory_search']);
    expect(tools.find((t) => t.name === 'memory_search')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'memory_add')?.inputSchema).toMatchObject({ type: 'object', required: ['text'], properties: { private: { type: 'boolean' } } });
    expect(tools.find((t) => t.name === 'memory_delete')?.inputSchema).toMatchObject({ required: ['ids'] });

    const shared = await call(alice, 'memory_add', { text: SHARED, tags: ['lighthouse'], dataset: 'notes' });
    const secret = await call(alice, 'memory_add', { text: SECRET, private: true, metadata: { where: 'the gym by the river' } });
    expect(shared.id).toEqual(expect.any(String));

    const found = await call(alice, 'memory_search', { query: SHARED, limit: 5 });
    expect(found.items[0]).toMatchObject({ id: shared.id, text: SHARED, dataset: 'notes', bank: 'shared' });
    expect(found.items[0].score).toEqual(expect.any(Number));
    expect(found.items[0].tags).toEqual(expect.arrayContaining(['lighthouse', 'agent:alice']));
    const recalled = await call(alice, 'memory_recall', { query: SECRET });
    expect(recalled.items.map((i: { id: string }) => i.id)).toEqual(expect.arrayContaining([shared.id, secret.id]));

    // Another agent sees the shared item and never alice's private one, by any tool.
    const bob = await connect(gw.url, { 'x-svc-agent': 'bob' });
    const bobs = await call(bob, 'memory_search', { query: SECRET, limit: 10 });
    expect(bobs.items.map((i: { id: string }) => i.id)).toContain(shared.id);
    expect(bobs.items.map((i: { id: string }) => i.id)).not.toContain(secret.id);
    expect((await call(bob, 'memory_list', {})).items.map((i: { id: string }) => i.id)).toEqual([shared.id]);
    expect((await call(bob, 'memory_history', { id: secret.id })).item).toBeNull();
    expect(await call(bob, 'memory_curate', { ids: [secret.id], add_tags: ['stolen'] })).toEqual({ updated: 0 });
    const own = await call(alice, 'memory_history', { id: secret.id });
    expect(own.item).toMatchObject({ id: secret.id, text: SECRET, tags: expect.arrayContaining(['visibility:private', 'agent:alice']) });
    expect(own.activity.map((row: { action: string }) => row.action)).toContain('memory.add');

    // Curate retags (and the ownership tags are not the caller's to change).
    expect(await call(alice, 'memory_curate', { ids: [shared.id], add_tags: ['kept'], remove_tags: ['lighthouse'] })).toEqual({ updated: 1 });
    const retagged = await call(alice, 'memory_history', { id: shared.id });
    expect(retagged.item.tags).toEqual(expect.arrayContaining(['kept', 'agent:alice']));
    expect(retagged.item.tags).not.toContain('lighthouse');
    expect(retagged.activity.map((row: { action: string }) => row.action)).toEqual(expect.arrayContaining(['memory.add', 'memory.retag']));
    const reserved = await alice.callTool({ name: 'memory_curate', arguments: { ids: [shared.id], remove_tags: ['agent:alice'] } });
    expect(reserved.isError).toBe(true);
    expect(textOf(reserved)).toContain('request.invalid');
    const bad = await alice.callTool({ name: 'memory_add', arguments: { text: '' } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('request.invalid');

    // The agent's tool-call rows keep what it stored out: no text, no metadata (issue 36, item 4).
    const calls = await api(gw.url, '/api/activity?action=mcp.tool_call&target=svc-memory__memory_add');
    const secretRow = calls.json.items.find((row: { details: { args: { private?: boolean } } }) => row.details.args.private === true);
    expect(secretRow.details).toMatchObject({ agent: 'alice', omitted: { text: `${SECRET.length} characters`, metadata: '1 keys' } });
    expect(secretRow.details.args).not.toHaveProperty('text');
    for (const stored of [SECRET, SHARED, 'the gym by the river']) expect(calls.text).not.toContain(stored);

    // A malformed agent id is refused before MCP starts.
    const refused = await api(gw.url, '/mcp/memory/mcp', { method: 'POST', headers: { 'x-svc-agent': 'no spaces!', accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('memory.agent_id_invalid');
  }, 180_000);

  it('holds memory_delete in the approvals queue until it is approved, keyed on the ids', async () => {
    const carol = await connect(gw.url, { 'x-svc-agent': 'carol' });
    const added = await call(carol, 'memory_add', { text: 'carol parks the red bicycle behind the bakery' });
    const pending = carol.callTool({ name: 'memory_delete', arguments: { ids: [added.id] } });
    const queued = await waitFor(async () => (await api(gw.url, '/api/agent/approvals')).json.approvals, { what: 'the delete to wait for approval', until: (list) => list.length === 1 });
    expect(queued[0]).toMatchObject({ tool: 'svc-memory__memory_delete', server: 'svc-memory', args: { ids: [added.id] }, state: 'pending', hit_count: 1 });
    // The same ids join the pending entry.
    const again = carol.callTool({ name: 'memory_delete', arguments: { ids: [added.id] } });
    await waitFor(async () => (await api(gw.url, '/api/agent/approvals')).json.approvals, { what: 'the second call to join', until: (list) => list[0]?.hit_count === 2 });
    // Nothing was deleted yet.
    expect((await call(carol, 'memory_history', { id: added.id })).item).toMatchObject({ id: added.id });

    const approved = await api(gw.url, `/api/agent/approvals/${queued[0].id}/approve`, { method: 'POST' });
    expect(approved.status, approved.text).toBe(200);
    const results = await Promise.all([pending, again]);
    const deleted = results.map((r) => JSON.parse(textOf(r as Record<string, unknown>)).deleted as number).sort();
    expect(deleted).toEqual([0, 1]);
    expect((await call(carol, 'memory_history', { id: added.id })).item).toBeNull();
    const events = (await api(gw.url, '/api/events?type=mcp.tool.*')).json.events.map((e: { type: string; data: { tool: string } }) => `${e.type} ${e.data.tool}`);
    expect(events).toEqual(expect.arrayContaining(['mcp.tool.enqueued memory_delete', 'mcp.tool.approved memory_delete', 'mcp.tool.executed memory_delete']));
  }, 120_000);

  it('reflects: a recall, then an answer from the llm', async () => {
    const dave = await connect(gw.url, { 'x-svc-agent': 'dave' });
    const added = await call(dave, 'memory_add', { text: 'dave waters the fern on tuesdays' });
    const reflection = await call(dave, 'memory_reflect', { query: 'when does dave water the fern?' });
    expect(reflection.text).toEqual(expect.any(String));
    expect(reflection.based_on).toContain(added.id);
    expect(reflection.items.map((i: { id: string }) => i.id)).toContain(added.id);
  }, 120_000);
});

describe('svc-memory with memory off', () => {
  it('is listed but offers no tools, and a call by name is memory.unavailable', async () => {
    const off = await temp.gateway(temp.home({ 'svc.toml': '[memory]\nenabled = false\nengine = "pgvector"\n' }));
    const servers = (await api(off.url, '/api/mcp/servers')).json.servers.map((s: { id: string }) => s.id);
    expect(servers).toEqual(expect.arrayContaining(['svc-admin', 'svc-memory']));
    const client = await connect(off.url);
    expect((await client.listTools()).tools).toEqual([]);
    const result = await client.callTool({ name: 'memory_search', arguments: { query: 'anything' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('memory.unavailable');
  });
});
