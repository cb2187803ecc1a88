// Every store a v1 or read caller (or anyone, in default mode) can grow has a bound
// (docs/troubleshooting.md, "Bounded stores"); here each one reached over HTTP is driven past
// a small cap on a real gateway: stored /v1/responses (rows and size, oldest out, a
// store.pruned event, an answer too large not stored), the activity log (size), memory banks
// (items and banks, refused with 507, nothing deleted) and waiting pulls (refused with 503).
// The responses go to a scripted OpenAI-compatible upstream (no context to fill), the memory to
// the embedded pgvector store with the built-in engine's embedding slot, the pulls to a
// Hugging Face endpoint that holds every request until the test lets it answer 404, so the
// first pull waits while the next is refused.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { startScriptedUpstream, type ScriptedUpstream } from './helpers/scripted-upstream.js';
import { waitFor } from './helpers/wait.js';

const MIB = 1024 * 1024;
const SETTINGS = `[dispatcher]
responses_max_rows = 3
responses_max_mb = 1

[activity]
max_mb = 1

[memory]
engine = "pgvector"
max_items_per_bank = 3
max_banks = 2

[models]
pull_queue_max = 1
`;

let gw: Gateway;
let upstream: ScriptedUpstream;
let silentHub: Server;
/** The hub's held requests; once `answering`, it answers each at once. */
const held: Array<{ end(): void }> = [];
let answering = false;
const notFound = (res: { writeHead(status: number): { end(): void } }) => ({ end: () => res.writeHead(404).end() });

beforeAll(async () => {
  upstream = await startScriptedUpstream({ talk: { always: { content: 'noted' } } });
  // A Hugging Face endpoint that answers only when the test says so: a pull waits on it.
  silentHub = createServer((_req, res) => (answering ? notFound(res).end() : held.push(notFound(res))));
  await new Promise<void>((resolve) => silentHub.listen(0, '127.0.0.1', resolve));
  const home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', SETTINGS);
  home.write('upstreams.toml', upstream.toml('script'));
  gw = await startGateway(home.home, { env: { SVC_HF_ENDPOINT: `http://127.0.0.1:${(silentHub.address() as AddressInfo).port}` } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  upstream?.stop();
  silentHub?.closeAllConnections();
  silentHub?.close();
});

type Pruned = { store: string; reason: string; removed: number; rows: number | null; bytes: number | null };
const pruned = async (store: string): Promise<Pruned[]> =>
  ((await api(gw.url, '/api/events?type=store.pruned&limit=500')).json.events as Array<{ data: Pruned }>).map((e) => e.data).filter((d) => d.store === store);
const respond = (input: string) => api(gw.url, '/v1/responses', { method: 'POST', body: { model: 'talk', input } });
const stored = async (id: string) => (await api(gw.url, `/v1/responses/${id}`)).status;

describe('stored /v1/responses', () => {
  it('the settings are in /api/settings/schema', async () => {
    const schema = (await api(gw.url, '/api/settings/schema')).text;
    for (const key of ['responses_max_rows', 'responses_max_mb', 'max_items_per_bank', 'max_banks', 'pull_queue_max']) expect(schema).toContain(key);
    expect((await api(gw.url, '/api/settings')).json.settings.activity.max_mb).toBe(1);
  });

  it('past responses_max_rows the oldest go, and a store.pruned event says so', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const answer = await respond(`turn ${i}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.store).toBe(true);
      ids.push(answer.json.id);
    }
    expect([await stored(ids[0]!), await stored(ids[1]!), await stored(ids[2]!), await stored(ids[3]!)]).toEqual([404, 404, 200, 200]);
    expect(await pruned('responses')).toEqual([{ store: 'responses', reason: 'max_rows', removed: 2, rows: 2, bytes: expect.any(Number) }]);
  });

  it('past responses_max_mb the oldest go; an answer larger than the cap is not stored at all', async () => {
    const big = (c: string) => c.repeat(400_000);
    const ids: string[] = [];
    for (const c of ['a', 'b', 'c']) ids.push((await respond(big(c))).json.id);
    expect(await stored(ids[0]!)).toBe(404);
    expect([await stored(ids[1]!), await stored(ids[2]!)]).toEqual([200, 200]);
    const events = await pruned('responses');
    expect(events.at(-1)).toMatchObject({ reason: 'max_bytes', removed: 1, rows: 2 });
    expect(events.at(-1)!.bytes).toBeLessThanOrEqual(0.9 * MIB);

    const huge = await respond('h'.repeat(1.1 * MIB));
    expect(huge.status, huge.text.slice(0, 300)).toBe(200);
    expect(huge.json.store).toBe(false);
    expect(await stored(huge.json.id)).toBe(404);
    expect(await stored(ids[2]!)).toBe(200); // nothing was pushed out for it
  }, 30_000);
});

describe('the activity log', () => {
  it('past [activity].max_mb the oldest rows go, and a store.pruned event says so', async () => {
    // Each change is a settings.update row carrying the value before and after: about 200 kB.
    for (let i = 0; i < 7; i++) {
      const put = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { embedding: { rerank_model: String(i).repeat(100_000) } } } });
      expect(put.status, put.text.slice(0, 300)).toBe(200);
    }
    const [event] = await waitFor(() => pruned('activity'), { what: 'a store.pruned event of the activity log', until: (e) => e.length > 0 });
    expect(event).toMatchObject({ store: 'activity', reason: 'max_bytes' });
    expect(event!.bytes).toBeLessThanOrEqual(0.9 * MIB);
    const rows = (await api(gw.url, '/api/activity?action=settings.update&limit=100')).json.items;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(7);
    expect(rows[0].details.changes['memory.embedding.rerank_model'].after).toBe('6'.repeat(100_000)); // the newest stays
    await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { embedding: { rerank_model: null } } } });
  }, 30_000);
});

describe('memory banks', () => {
  const add = (text: string) => api(gw.url, '/api/memory/add', { method: 'POST', body: { text } });

  it('refuse an add past max_items_per_bank with 507 memory.bank_full, and delete nothing', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await add(`memory number ${i}`);
      expect(answer.status, answer.text).toBe(200);
      ids.push(answer.json.id);
    }
    const full = await add('one too many');
    expect(full.status, full.text).toBe(507);
    expect(full.json.error).toMatchObject({ code: 'memory.bank_full', details: { bank: 'shared', items: 3, adding: 1, max_items_per_bank: 3 } });
    const listed = (await api(gw.url, '/api/memory/list?limit=100')).json.items.map((item: { id: string }) => item.id);
    expect(listed.sort()).toEqual([...ids].sort());
    // Room again once one is deleted: the count is read again before a refusal.
    expect((await api(gw.url, '/api/memory/delete', { method: 'POST', body: { ids: [ids[0]] } })).json.deleted).toBe(1);
    expect((await add('fits now')).status).toBe(200);
  }, 240_000); // the embedded database's first start (initdb) is in it

  it('refuse a bank past max_banks with 507 memory.too_many_banks', async () => {
    expect((await api(gw.url, '/api/memory/banks/second', { method: 'PUT', body: {} })).status).toBe(200);
    const third = await api(gw.url, '/api/memory/banks/third', { method: 'PUT', body: {} });
    expect(third.status, third.text).toBe(507);
    expect(third.json.error).toMatchObject({ code: 'memory.too_many_banks', details: { bank: 'third', banks: 2, max_banks: 2 } });
    expect((await api(gw.url, '/api/memory/banks')).json.banks.map((b: { id: string }) => b.id).sort()).toEqual(['second', 'shared']);
    expect((await api(gw.url, '/api/memory/banks/second', { method: 'PUT', body: { name: 'again' } })).status).toBe(200); // an existing bank is no new one
  }, 60_000);

  it('refuse a degraded hindsight write past max_items_per_bank waiting in the outbox', async () => {
    // The daemon's address is a closed port: the engine degrades at its first use and keeps writes in svc's own store.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const put = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { engine: 'hindsight', hindsight_url: `http://127.0.0.1:${port}`, hindsight_reprobe_interval_s: 0 } } });
    expect(put.status, put.text).toBe(200);
    for (let i = 0; i < 3; i++) {
      const added = await add(`waiting ${i}`);
      expect(added.status, added.text).toBe(200);
    }
    expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ engine: 'hindsight', state: 'degraded', pending: 3 });
    const full = await add('one too many');
    expect(full.status, full.text).toBe(507);
    expect(full.json.error).toMatchObject({ code: 'memory.bank_full', details: { bank: 'shared', items: 3, max_items_per_bank: 3 } });
    expect((await api(gw.url, '/api/memory/engine')).json.pending).toBe(3);
  }, 60_000);
});

describe('model pulls', () => {
  it('refuse a pull past pull_queue_max with 503 model.pull_queue_full, and take one once the first ended', async () => {
    const first = await api(gw.url, '/api/models/first/pull', { method: 'POST', body: { ref: 'org/first-GGUF' } });
    expect(first.status, first.text).toBe(202);
    const second = await api(gw.url, '/api/models/second/pull', { method: 'POST', body: { ref: 'org/second-GGUF' } });
    expect(second.status, second.text).toBe(503);
    expect(second.json.error).toMatchObject({ code: 'model.pull_queue_full', details: { waiting: 1, max: 1 } });
    expect((await api(gw.url, '/api/models/second/pull/status')).status).toBe(404);
    // The first ends (the hub has no such repo); then there is room for the second.
    answering = true;
    held.splice(0).forEach((res) => res.end());
    await waitFor(async () => (await api(gw.url, '/api/models/first/pull/status')).json.state, { what: 'the first pull to fail', until: (state) => state === 'failed' });
    expect((await api(gw.url, '/api/models/second/pull', { method: 'POST', body: { ref: 'org/second-GGUF' } })).status).toBe(202);
    await waitFor(async () => (await api(gw.url, '/api/models/second/pull/status')).json.state, { what: 'the second pull to fail', until: (state) => state === 'failed' });
  });
});
