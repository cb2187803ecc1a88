// A password inside a configured URL never comes back from a read (issue 36, item 4): set
// from this host as [memory].pgvector_url, it is masked in GET /api/settings and the PUT's
// answer, the settings.update activity row, the event stream and svc-admin's settings_read;
// writing the masked form back keeps the real password in svc.toml. The same for a peer's
// URL (GET /api/peers), a tool server's (GET /api/mcp/servers) and a slot's env (GET
// /api/slots/<name>, and a PUT of what it showed).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { EventReader } from './helpers/sse.js';

const PASSWORD = 'hunter2-c0rrect-h0rse';
const PG_URL = `postgres://svc:${PASSWORD}@127.0.0.1:1/mem`;
const PG_MASKED = 'postgres://svc:***@127.0.0.1:1/mem';

const { gateway } = useTempGateways(afterEach);
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const textOf = (result: Record<string, unknown>) => (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('');

describe('URL secrets in reads', () => {
  it('masks a settings URL password in answers, activity rows, events and settings_read, and keeps it when the masked form is written back', async () => {
    const h = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
    h.write('peers.toml', `[peers.north]\nurl = "http://peer:${PASSWORD}@10.255.0.9:8080"\nenabled = false\n`);
    h.write('mcp-servers/remote.toml', `transport = "streamable-http"\nurl = "http://tok:${PASSWORD}@127.0.0.1:9/mcp?api_key=${PASSWORD}"\nenabled = false\n`);
    const gw = await gateway(h);
    const svcToml = join(h.configRoot, 'svc.toml');

    const set = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { pgvector_url: PG_URL } } });
    expect(set.status, set.text).toBe(200);
    expect(readFileSync(svcToml, 'utf8')).toContain(PG_URL);
    expect(set.json.settings.memory.pgvector_url).toBe(PG_MASKED);

    const read = await api(gw.url, '/api/settings');
    expect(read.json.settings.memory.pgvector_url).toBe(PG_MASKED);

    // Written back as read: the file keeps the password, and the answer still masks it.
    const back = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { pgvector_url: read.json.settings.memory.pgvector_url } } });
    expect(back.status, back.text).toBe(200);
    expect(readFileSync(svcToml, 'utf8')).toContain(PG_URL);
    expect(back.json.settings.memory.pgvector_url).toBe(PG_MASKED);

    const rows = await api(gw.url, '/api/activity?action=settings.update');
    expect(rows.json.items).toHaveLength(2);
    expect(rows.json.items.map((r: { details: { changes: Record<string, { after: string }> } }) => r.details.changes['memory.pgvector_url']!.after)).toEqual([PG_MASKED, PG_MASKED]);

    // The event stream, replayed from the start up to the second row's event.
    const stream = new AbortController();
    closers.push(async () => stream.abort());
    const events = new EventReader((await fetch(`${gw.url}/api/events/stream?since=0`, { signal: stream.signal })).body!.getReader());
    const seen: string[] = [];
    while (seen.filter((e) => e.includes('"settings.update"')).length < 2) {
      const data = await events.next();
      if (data === null) throw new Error('the event stream ended');
      seen.push(data);
    }
    expect(seen.join('\n')).toContain(PG_MASKED);

    const admin = new Client({ name: 'svc-test', version: '1.0.0' });
    await admin.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp/admin/mcp`)));
    closers.push(() => admin.close());
    const settingsRead = textOf(await admin.callTool({ name: 'settings_read', arguments: {} }));
    expect(settingsRead).toContain(PG_MASKED);

    const peers = await api(gw.url, '/api/peers');
    expect(peers.json.peers.find((p: { name: string }) => p.name === 'north').url).toBe('http://peer:***@10.255.0.9:8080');
    const servers = await api(gw.url, '/api/mcp/servers');
    const remote = await api(gw.url, '/api/mcp/servers/remote');
    expect(remote.json.url).toBe('http://tok:***@127.0.0.1:9/mcp?api_key=***');

    for (const answer of [set.text, read.text, back.text, rows.text, seen.join('\n'), settingsRead, peers.text, servers.text, remote.text, (await api(gw.url, '/api/status')).text, (await api(gw.url, '/api/events?limit=500')).text]) {
      expect(answer).not.toContain(PASSWORD);
    }
  }, 90_000);

  it("masks a URL in a slot's env, and a PUT of the env as read keeps it", async () => {
    const h = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
    const gw = await gateway(h);
    const mirror = `https://hf:${PASSWORD}@mirror.lan/`;
    const set = await api(gw.url, '/api/slots/chat', { method: 'PUT', body: { env: { HF_ENDPOINT: mirror } } });
    expect(set.status, set.text).toBe(200);
    const slotFile = join(h.configRoot, 'slots/chat.toml');
    expect(readFileSync(slotFile, 'utf8')).toContain(mirror);

    const detail = await api(gw.url, '/api/slots/chat');
    expect(detail.json.config.server.env).toEqual({ HF_ENDPOINT: 'https://hf:***@mirror.lan/' });
    expect(detail.text).not.toContain(PASSWORD);
    const back = await api(gw.url, '/api/slots/chat', { method: 'PUT', body: { env: { ...detail.json.config.server.env, OMP_NUM_THREADS: '2' } } });
    expect(back.status, back.text).toBe(200);
    expect(readFileSync(slotFile, 'utf8')).toContain(mirror);
    expect((await api(gw.url, '/api/activity?action=slot.edit_config')).text).not.toContain(PASSWORD);
  }, 60_000);
});
