// The bundled svc-admin server at /mcp/admin/mcp, driven by the MCP SDK's own client over
// streamable HTTP: its tools listed and called in default mode; in auth mode a read-only
// token lists and calls the read tools, a write tool is refused as a tool error, and no
// token at all is refused before MCP starts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways } from './helpers/gateway.js';
import { EventReader } from './helpers/sse.js';

const SECRET = 'mcp-admin-test-proxy-secret-0123456789';
const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': SECRET };
const { home, gateway } = useTempGateways(afterEach);
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp/admin/mcp`), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  await client.connect(transport);
  clients.push(client);
  return client;
}

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('');

describe('svc-admin over MCP', () => {
  it('lists its tools and calls slots_list and status with the SDK client', async () => {
    const gw = await gateway(home());
    const watch = new AbortController();
    const stream = await fetch(`${gw.url}/api/mcp/stream`, { signal: watch.signal });
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const steps = new EventReader(stream.body!.getReader());
    const client = await connect(gw.url);
    expect(client.getServerVersion()?.name).toBe('svc-admin');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['activity_query', 'model_pull', 'models_list', 'settings_read', 'slot_load', 'slot_restart', 'slot_unload', 'slots_list', 'status']);
    expect(tools.find((t) => t.name === 'slots_list')?.annotations?.readOnlyHint).toBe(true);
    expect(tools.find((t) => t.name === 'slot_load')?.inputSchema).toMatchObject({ type: 'object', required: ['name'] });

    const slots = await client.callTool({ name: 'slots_list', arguments: {} });
    expect(slots.isError).toBeFalsy();
    expect(JSON.parse(textOf(slots))).toEqual({ slots: [] });
    const status = await client.callTool({ name: 'status', arguments: {} });
    expect(JSON.parse(textOf(status))).toMatchObject({ auth_enabled: false, slots: { total: 0 } });

    // A tool's own failure is a tool error with its code, for the model to read.
    const missing = await client.callTool({ name: 'slot_unload', arguments: { name: 'nope' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toContain('slot.not_found');

    // Each call is steps on the stream of tool calls, as they happen.
    const first = (await steps.next())!.split('\n');
    expect(first[0]).toMatch(/^id: \d+$/);
    expect(first[1]).toBe('event: mcp.tool.invoked');
    expect(JSON.parse(first[2]!.slice('data: '.length))).toMatchObject({ server: 'svc-admin', tool: 'slots_list', outcome: 'invoked', gated: false, client: expect.stringMatching(/^mcp:/), ts: expect.any(String) });
    watch.abort();
    // And on the event bus.
    const events = (await api(gw.url, '/api/events?type=mcp.tool.*')).json.events.map((e: { type: string; data: { server: string; tool: string } }) => `${e.type} ${e.data.server} ${e.data.tool}`);
    expect(events).toEqual(expect.arrayContaining(['mcp.tool.invoked svc-admin slots_list', 'mcp.tool.executed svc-admin slots_list']));
  });

  it('in auth mode: a read-only token calls the read tools, and a write tool is refused', async () => {
    const gw = await gateway(home({ 'proxy-secret': SECRET }), { env: { SVC_AUTH_ENABLED: '1' } });
    const created = await api(gw.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label: 'reader', scope: 'read-only' } });
    expect(created.status).toBe(201);

    // No token: the guard refuses the request before MCP starts.
    const bare = await api(gw.url, '/mcp/admin/mcp', { method: 'POST', headers: { accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(bare.status).toBe(401);

    const client = await connect(gw.url, created.json.token);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['slots_list', 'status', 'models_list']));
    expect(names).not.toContain('slot_unload');

    const slots = await client.callTool({ name: 'slots_list', arguments: {} });
    expect(slots.isError).toBeFalsy();
    expect(JSON.parse(textOf(slots))).toEqual({ slots: [] });

    let refusal: string;
    try {
      const result = await client.callTool({ name: 'slot_unload', arguments: { name: 'chat' } });
      expect(result.isError).toBe(true);
      refusal = textOf(result);
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toContain('mcp.tool_blocked');
  });
});
