// The hindsight engine end to end: a real gateway with [memory] engine = "hindsight" against
// the fixture daemon (test/fixtures/hindsight-daemon.mjs, its REST API with a bearer key),
// recall through the gateway's rerank pass on the built-in engine's tiny reranker; then the
// degraded mode: the daemon down, writes acknowledged into the outbox (kept across a gateway
// restart), the daemon started, promote (the route, then the re-probe), the writes replayed
// in order. The daemon is probed at boot: a gateway whose daemon is down is degraded before
// its first memory request.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway, tempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { type DaemonFixture, startMemoryFixture } from './helpers/memory-daemons.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const KEY = 'fixture-key';
const KEY_ENV = { SVC_HINDSIGHT_API_KEY: KEY };
const as = (agent: string, priv = false) => ({ 'x-svc-agent': agent, ...(priv && { 'x-svc-private': 'true' }) });
const hindsightToml = (url: string, extra = '') => `[memory]\nengine = "hindsight"\nhindsight_url = "${url}"\n${extra}\n[memory.embedding]\nrerank_model = "svc/rerank"\nrerank_read_timeout_s = 30\n`;
const writesOf = async (daemon: DaemonFixture) => (await api(daemon.url, '/__fixture/writes')).json.writes as string[];

describe('the hindsight engine against its daemon', () => {
  let daemon: DaemonFixture;
  let gw: Gateway;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method: 'POST', body, headers });

  beforeAll(async () => {
    daemon = await startMemoryFixture('hindsight', { key: KEY });
    const home = await homeWithTinySlots([{ name: 'rank', provider: 'builtin', type: 'reranking', model: 'tiny-rerank' }]);
    home.write('svc.toml', hindsightToml(daemon.url));
    gw = await startGateway(home.home, { env: KEY_ENV });
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await daemon?.stop();
  });

  it('adds, searches, recalls with the rerank pass, lists and deletes, keeping private items to their agent', async () => {
    const texts = ['the amber fox sleeps by the river', 'a green kite over the stone bridge', "alice's secret: the amber key is under the lamp"];
    const ids: string[] = [];
    for (const [at, text] of texts.entries()) {
      const added = await post('/api/memory/add', { text, dataset: 'notes', tags: ['t'], metadata: { at } }, as('alice', at === 2));
      expect(added.status, added.text).toBe(200);
      ids.push(added.json.id);
    }
    expect(await writesOf(daemon)).toEqual(ids);

    const found = await post('/api/memory/search', { query: 'amber fox river', limit: 5 }, as('alice'));
    expect(found.status, found.text).toBe(200);
    expect(found.json.items[0]).toMatchObject({ id: ids[0], text: texts[0], dataset: 'notes', bank: 'shared', metadata: { at: '0' } });
    expect(found.json.items[0].tags).toEqual(expect.arrayContaining(['t', 'agent:alice']));

    const secretFor = async (agent: string) => (await post('/api/memory/search', { query: 'amber key lamp', limit: 10 }, as(agent))).json.items.map((i: { id: string }) => i.id);
    expect(await secretFor('alice')).toContain(ids[2]);
    expect(await secretFor('bob')).not.toContain(ids[2]);

    const recalled = await post('/api/memory/recall', { query: 'amber', max_tokens: 4096 }, as('alice'));
    expect(recalled.status, recalled.text).toBe(200);
    expect(recalled.json.rerank).toBe('applied');
    expect(recalled.json.items.map((i: { id: string }) => i.id).sort()).toEqual([ids[0], ids[2]].sort());
    const bobRecall = await post('/api/memory/recall', { query: 'amber', max_tokens: 4096 }, as('bob'));
    expect(bobRecall.json.items.map((i: { id: string }) => i.id)).toEqual([ids[0]]);

    const list = async (agent: string) => (await api(gw.url, '/api/memory/list?limit=2', { headers: as(agent) })).json;
    const page = await list('bob');
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids[0], ids[1]]);
    expect(page.next_cursor).toBe('shared@2');
    const rest = await api(gw.url, `/api/memory/list?limit=2&cursor=${page.next_cursor}`, { headers: as('bob') });
    expect(rest.json).toEqual({ items: [], next_cursor: null });
    const alicePage = await api(gw.url, '/api/memory/list?limit=10', { headers: as('alice') });
    expect(alicePage.json.items.map((i: { id: string }) => i.id)).toEqual(ids);

    expect((await post('/api/memory/delete', { ids: [ids[2]] }, as('bob'))).json).toEqual({ deleted: 0 });
    expect((await post('/api/memory/delete', { ids: [ids[2], 'no-such-id'] }, as('alice'))).json).toEqual({ deleted: 1 });
    expect(await secretFor('alice')).not.toContain(ids[2]);
  }, 120_000);

  it('mirrors the daemon errors: a 4xx with its status, a 5xx as 502, a bad answer as memory.engine_shape', async () => {
    const teapot = await post('/api/memory/search', { query: 'fixture-status-418' });
    expect(teapot.status).toBe(418);
    expect(teapot.json.error).toMatchObject({ code: 'memory.engine_error', details: { upstream_status: 418, engine: 'hindsight' } });
    const broken = await post('/api/memory/recall', { query: 'fixture-status-500' });
    expect(broken.status).toBe(502);
    expect(broken.json.error.code).toBe('memory.engine_upstream');
    const shape = await post('/api/memory/search', { query: 'fixture-bad-shape' });
    expect(shape.status).toBe(502);
    expect(shape.json.error.code).toBe('memory.engine_shape');
  });

  it('reports the engine, lists banks, passes allowlisted bank paths through and refuses the rest', async () => {
    const engine = await api(gw.url, '/api/memory/engine');
    expect(engine.json).toMatchObject({ enabled: true, engine: 'hindsight', reachable: true, version: '0.4.0-fixture', state: 'healthy', banks_total: 1 });
    const banks = await api(gw.url, '/api/memory/banks');
    expect(banks.json.banks).toEqual([expect.objectContaining({ id: 'shared', items: 2 })]);
    const tags = await api(gw.url, '/api/memory/banks/shared/tags');
    expect(tags.status, tags.text).toBe(200);
    expect(tags.json.items).toEqual(expect.arrayContaining([{ tag: 't', count: 2 }]));
    for (const path of ['secrets', 'documents/a..b', 'documents//x', 'stats%2F..', 'memories/x/history/more']) {
      const refused = await api(gw.url, `/api/memory/banks/shared/${path}`);
      expect(refused.status, path).toBe(400);
      expect(refused.json.error.code).toBe('memory.invalid_path');
    }
    expect((await post('/api/memory/promote', {})).json).toEqual({ promoted: true, changed: false, state: 'healthy' });
  });
});

describe('the hindsight engine degraded: its daemon down', () => {
  it('keeps writes in the outbox across a restart, then promote replays them in order', async () => {
    const port = await freePort();
    const home = tempHome({ 'svc.toml': hindsightToml(`http://127.0.0.1:${port}`, 'hindsight_reprobe_interval_s = 0') });
    const ids: string[] = [];
    let gw = await startGateway(home.home, { env: KEY_ENV });
    let daemon: DaemonFixture | undefined;
    try {
      // Probed at boot, in the background: degraded before any memory request, and svc's own
      // database not started for it (only a degraded write needs the outbox).
      await waitFor(async () => JSON.stringify((await api(gw.url, '/api/events?limit=500')).json), { what: 'the boot probe to degrade the engine', until: (events) => events.includes('memory.engine.degraded') });
      expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ engine: 'hindsight', reachable: false, state: 'degraded', pending: 0 });
      expect(existsSync(join(home.stateRoot, 'memory', 'pg'))).toBe(false);
      expect((await api(gw.url, '/api/activity?action=memory.engine.degraded')).json.items).toHaveLength(1);
      for (let i = 0; i < 3; i++) {
        const added = await api(gw.url, '/api/memory/add', { method: 'POST', body: { text: `waiting note ${i} about the harbour` } });
        expect(added.status, added.text).toBe(200);
        ids.push(added.json.id);
      }
      expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ engine: 'hindsight', reachable: false, state: 'degraded', pending: 3 });
      const waiting = await api(gw.url, '/api/memory/search', { method: 'POST', body: { query: 'harbour note 1' } });
      expect(waiting.json.items[0]).toMatchObject({ id: ids[1], source: 'outbox' });
      const events = await api(gw.url, '/api/events?limit=500');
      expect(JSON.stringify(events.json)).toContain('memory.engine.degraded');
      expect(await gw.stop()).toBe(0);

      gw = await startGateway(home.home, { env: KEY_ENV });
      const more = await api(gw.url, '/api/memory/add', { method: 'POST', body: { text: 'waiting note 3 after the restart' } });
      expect(more.status, more.text).toBe(200);
      ids.push(more.json.id);
      expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ state: 'degraded', pending: 4 });
      expect((await api(gw.url, '/api/memory/list')).json.items.map((i: { id: string }) => i.id)).toEqual(ids);
      expect((await api(gw.url, '/api/memory/promote', { method: 'POST' })).json).toMatchObject({ promoted: false, changed: false, state: 'degraded' });

      daemon = await startMemoryFixture('hindsight', { port, key: KEY });
      expect((await api(gw.url, '/api/memory/promote', { method: 'POST' })).json).toMatchObject({ promoted: true, changed: true, state: 'healthy' });
      expect(await writesOf(daemon)).toEqual(ids);
      expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ reachable: true, state: 'healthy' });
      const found = await api(gw.url, '/api/memory/search', { method: 'POST', body: { query: 'after the restart' } });
      expect(found.json.items[0]).toMatchObject({ id: ids[3], source: 'hindsight' });
      const activity = await api(gw.url, '/api/activity?limit=200');
      expect(JSON.stringify(activity.json)).toContain('memory.engine.promoted');
    } finally {
      await gw.stop();
      await daemon?.stop();
    }
  }, 180_000);

  it('promotes itself on the re-probe once the daemon answers', async () => {
    const port = await freePort();
    const home = tempHome({ 'svc.toml': hindsightToml(`http://127.0.0.1:${port}`, 'hindsight_reprobe_interval_s = 1') });
    const gw = await startGateway(home.home, { env: KEY_ENV });
    let daemon: DaemonFixture | undefined;
    try {
      const added = await api(gw.url, '/api/memory/add', { method: 'POST', body: { text: 'kept while the daemon was away' } });
      expect(added.status, added.text).toBe(200);
      expect((await api(gw.url, '/api/memory/engine')).json).toMatchObject({ state: 'degraded', pending: 1 });
      daemon = await startMemoryFixture('hindsight', { port, key: KEY });
      await waitFor(async () => (await api(gw.url, '/api/memory/engine')).json.state, { what: 'the engine to promote itself', until: (state) => state === 'healthy', timeout: 60_000 });
      expect(await writesOf(daemon)).toEqual([added.json.id]);
    } finally {
      await gw.stop();
      await daemon?.stop();
    }
  }, 180_000);
});
