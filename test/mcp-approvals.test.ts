// Gated tool calls wait in the approvals queue: svc-admin's slot_restart gated through the
// API, called through /mcp/admin/mcp with the SDK's client; while it waits the queue lists
// it (the API, its event stream, `svc agent approvals list --json`), approving runs it, and
// a second call denied fails with mcp.tool_failed. Approving an entry runs only the call it
// shows: other arguments, or the same arguments from another token, wait as entries of their own.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { api, runSvcAsync, useTempGateways } from './helpers/gateway.js';
import { EventReader } from './helpers/sse.js';
import { waitFor } from './helpers/wait.js';

const { home, gateway } = useTempGateways(afterEach);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

/** The next approvals event that is not a comment, parsed. */
async function nextEvent(reader: EventReader) {
  const data = await reader.next();
  if (data === null) throw new Error('the approvals stream ended');
  return JSON.parse(data) as { kind: string; entry?: { id: string; state: string; tool: string }; entries?: unknown[] };
}

describe('approvals of gated tool calls', () => {
  it('holds a gated svc-admin call until it is approved, and fails one that is denied', async () => {
    const h = home();
    const gw = await gateway(h);
    const gated = await api(gw.url, '/api/mcp/svc-admin/tools', { method: 'PATCH', body: { gated: ['slot_restart'] } });
    expect(gated.status, gated.text).toBe(200);
    expect(gated.json.tool_details.find((t: { name: string }) => t.name === 'slot_restart').policy).toBe('gated');

    const stream = new AbortController();
    closers.push(async () => stream.abort());
    const response = await fetch(`${gw.url}/api/agent/approvals/events`, { signal: stream.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = new EventReader(response.body!.getReader());
    expect(await nextEvent(events)).toEqual({ kind: 'snapshot', entries: [] });

    const client = new Client({ name: 'svc-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/admin/mcp`)));
    closers.push(() => client.close());

    // The call waits for a decision; nothing about it is settled yet.
    const first = client.callTool({ name: 'slot_restart', arguments: { name: 'chat' } });
    const enqueued = await nextEvent(events);
    expect(enqueued).toMatchObject({ kind: 'enqueued', entry: { tool: 'svc-admin__slot_restart', state: 'pending' } });
    const pending = (await api(gw.url, '/api/agent/approvals')).json.approvals;
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ id: enqueued.entry!.id, server: 'svc-admin', args: { name: 'chat' }, state: 'pending', hit_count: 1 });

    const listed = await runSvcAsync(['agent', 'approvals', 'list', '--json'], { home: h.home, env: { SVC_API_URL: gw.url } });
    expect(listed.stderr).toBe('');
    expect(listed.status).toBe(0);
    expect(JSON.parse(listed.stdout).approvals.map((a: { id: string }) => a.id)).toEqual([enqueued.entry!.id]);

    const approved = await api(gw.url, `/api/agent/approvals/${enqueued.entry!.id}/approve`, { method: 'POST' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json.approval).toMatchObject({ id: enqueued.entry!.id, state: 'approved' });
    expect((await nextEvent(events)).kind).toBe('approved');
    // It ran: slot_restart itself answered (there is no slot "chat" in this home).
    const ran = await first;
    expect(ran.isError).toBe(true);
    expect(textOf(ran)).toContain('slot.not_found');
    const again = await api(gw.url, `/api/agent/approvals/${enqueued.entry!.id}/approve`, { method: 'POST' });
    expect([404, 409]).toContain(again.status);
    expect(['approvals.already_resolved', 'approvals.not_found']).toContain(again.json.error.code);

    const second = client.callTool({ name: 'slot_restart', arguments: { name: 'other' } });
    const waiting = await waitFor(async () => (await api(gw.url, '/api/agent/approvals')).json.approvals, { what: 'the second call to wait', until: (list) => list.length === 1 });
    const denied = await api(gw.url, `/api/agent/approvals/${waiting[0].id}/deny`, { method: 'POST' });
    expect(denied.json.approval).toMatchObject({ state: 'denied' });
    let refusal: string;
    try {
      const result = await second;
      expect(result.isError).toBe(true);
      refusal = textOf(result);
    } catch (error) {
      refusal = (error as Error).message;
    }
    expect(refusal).toContain('mcp.tool_failed');
    expect((await api(gw.url, '/api/agent/approvals')).json.approvals).toEqual([]);
    expect((await api(gw.url, '/api/agent/approvals/nope/approve', { method: 'POST' })).json.error.code).toBe('approvals.not_found');
  }, 60_000);

  it('approves exactly the call it shows: other arguments and other callers are entries of their own', async () => {
    const secret = 'mcp-approvals-test-proxy-secret-0123456789';
    const proxy = { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': secret };
    const gw = await gateway(home({ 'proxy-secret': secret }), { env: { SVC_AUTH_ENABLED: '1' } });
    expect((await api(gw.url, '/api/mcp/svc-admin/tools', { method: 'PATCH', headers: proxy, body: { gated: ['slot_load'] } })).status).toBe(200);
    const connect = async (label: string) => {
      const created = await api(gw.url, '/api/auth/tokens', { method: 'POST', headers: proxy, body: { label, scope: 'admin' } });
      expect(created.status, created.text).toBe(201);
      const client = new Client({ name: label, version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/admin/mcp`), { requestInit: { headers: { authorization: `Bearer ${created.json.token}` } } }));
      closers.push(() => client.close());
      return client;
    };
    const [alice, bob] = [await connect('alice'), await connect('bob')];
    const pending = async () => (await api(gw.url, '/api/agent/approvals', { headers: proxy })).json.approvals as Array<{ id: string; args: unknown; client_id: string; hit_count: number }>;
    const settled = (call: Promise<Record<string, unknown>>) => call.then((result) => textOf(result), (error: Error) => error.message);

    // The case: one caller's slot_load {name} and a slot_load {name, model} (here the
    // same caller, the hardest case), then bob with alice's exact arguments.
    const shown = settled(alice.callTool({ name: 'slot_load', arguments: { name: 'p2' } }));
    await waitFor(pending, { what: 'the first entry', until: (list) => list.length === 1 });
    const other = settled(alice.callTool({ name: 'slot_load', arguments: { name: 'p2', model: 'tiny-two' } }));
    await waitFor(pending, { what: 'the second entry', until: (list) => list.length === 2 });
    const bobs = settled(bob.callTool({ name: 'slot_load', arguments: { name: 'p2' } }));
    const entries = await waitFor(pending, { what: 'three entries', until: (list) => list.length === 3 });
    expect(entries.map((e) => [e.client_id, e.args, e.hit_count])).toEqual([
      ['mcp:alice', { name: 'p2' }, 1], ['mcp:alice', { name: 'p2', model: 'tiny-two' }, 1], ['mcp:bob', { name: 'p2' }, 1],
    ]);
    // A repeat of alice's exact call joins hers.
    const repeat = settled(alice.callTool({ name: 'slot_load', arguments: { name: 'p2' } }));
    await waitFor(pending, { what: 'the repeat to join', until: (list) => list[0]?.hit_count === 2 });

    expect((await api(gw.url, `/api/agent/approvals/${entries[0]!.id}/approve`, { method: 'POST', headers: proxy })).status).toBe(200);
    // Both of alice's {name: p2} calls ran (there is no slot p2 here); nothing else did.
    for (const ran of [await shown, await repeat]) expect(ran).toContain('slot.not_found');
    expect((await pending()).map((e) => e.id)).toEqual([entries[1]!.id, entries[2]!.id]);
    const loads = (await api(gw.url, '/api/activity?action=slot.load', { headers: proxy })).json;
    expect(JSON.stringify(loads)).not.toContain('tiny-two');
    for (const entry of entries.slice(1)) expect((await api(gw.url, `/api/agent/approvals/${entry.id}/deny`, { method: 'POST', headers: proxy })).status).toBe(200);
    for (const refused of [await other, await bobs]) expect(refused).toContain('denied');
  }, 60_000);
});
