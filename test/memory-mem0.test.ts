// The mem0 engine end to end: a real gateway with [memory] engine = "mem0" against the fixture
// of mem0's REST server (test/fixtures/mem0-server.mjs): add, search, list, delete, private
// items kept to their agent, the server's errors mapped; and cognee refused as retired.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, runSvc, startGateway, tempHome } from './helpers/gateway.js';
import { type DaemonFixture, startMemoryFixture } from './helpers/memory-daemons.js';

const as = (agent: string, priv = false) => ({ 'x-svc-agent': agent, ...(priv && { 'x-svc-private': 'true' }) });

describe('the mem0 engine against a mem0 server', () => {
  let server: DaemonFixture;
  let gw: Gateway;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method: 'POST', body, headers });

  beforeAll(async () => {
    server = await startMemoryFixture('mem0');
    const home = tempHome({ 'svc.toml': `[memory]\nengine = "mem0"\nmem0_url = "${server.url}"\n` });
    gw = await startGateway(home.home);
  }, 60_000);

  afterAll(async () => {
    await gw?.stop();
    await server?.stop();
  });

  it('adds, searches, lists and deletes, keeping private items to their agent', async () => {
    const texts = ['the violet heron fishes at dawn', 'a copper kettle on the stove', "carol's private note: the violet door code"];
    const ids: string[] = [];
    for (const [at, text] of texts.entries()) {
      const added = await post('/api/memory/add', { text, dataset: 'd', tags: ['x'], metadata: { at } }, as('carol', at === 2));
      expect(added.status, added.text).toBe(200);
      ids.push(added.json.id);
    }
    const found = await post('/api/memory/search', { query: 'violet heron dawn', limit: 5 }, as('carol'));
    expect(found.status, found.text).toBe(200);
    expect(found.json.items[0]).toMatchObject({ id: ids[0], text: texts[0], dataset: 'd', metadata: { at: 0 }, bank: 'shared', source: 'mem0' });
    expect(found.json.items[0].tags).toEqual(expect.arrayContaining(['x', 'agent:carol']));
    const violetFor = async (agent: string) => (await post('/api/memory/search', { query: 'violet door', limit: 10 }, as(agent))).json.items.map((i: { id: string }) => i.id);
    expect(await violetFor('carol')).toContain(ids[2]);
    expect(await violetFor('dave')).not.toContain(ids[2]);

    const recalled = await post('/api/memory/recall', { query: 'violet' }, as('dave'));
    expect(recalled.status, recalled.text).toBe(200);
    expect(recalled.json.items.map((i: { id: string }) => i.id)).toEqual([ids[0]]);

    const page = await api(gw.url, '/api/memory/list?limit=1', { headers: as('dave') });
    expect(page.json).toMatchObject({ items: [{ id: ids[0] }], next_cursor: 'shared@1' });
    const rest = await api(gw.url, '/api/memory/list?limit=5&cursor=shared@1', { headers: as('dave') });
    expect(rest.json).toEqual({ items: [expect.objectContaining({ id: ids[1] })], next_cursor: null });

    expect((await post('/api/memory/delete', { ids: [ids[2]] }, as('dave'))).json).toEqual({ deleted: 0 });
    expect((await post('/api/memory/delete', { ids: [ids[2], 'no-such-id'] }, as('carol'))).json).toEqual({ deleted: 1 });
    expect(await violetFor('carol')).not.toContain(ids[2]);

    const engine = await api(gw.url, '/api/memory/engine');
    expect(engine.json).toMatchObject({ engine: 'mem0', reachable: true });
    const passthrough = await api(gw.url, '/api/memory/banks/shared/tags');
    expect(passthrough.status).toBe(501);
    expect(passthrough.json.error.code).toBe('memory.engine_unsupported');
  });

  it('maps a server that does not answer to 503 memory.engine_unreachable', async () => {
    await server.stop();
    const answer = await post('/api/memory/search', { query: 'anything' });
    expect(answer.status).toBe(503);
    expect(answer.json.error).toMatchObject({ code: 'memory.engine_unreachable', details: { engine: 'mem0' } });
  });
});

describe('the cognee engine', () => {
  it('is refused as retired, naming memory.engine', () => {
    const home = tempHome({ 'svc.toml': '[memory]\nengine = "cognee"\n' });
    const result = runSvc(['config', 'validate'], { home: home.home });
    expect(result.status).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toMatch(/memory\.engine.*cognee was retired/);
  });
});
