// /api/memory end to end: a real gateway with the built-in engine's embedding and reranking
// slots on the tiny model, and [memory] engine = "pgvector" (the embedded database process).
// One home for the file: the database's first start runs initdb (seconds), the later ones open it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { api, type Gateway, runSvcAsync, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';

let home: TempHome;
let gw: Gateway;
const orphans: number[] = [];

const MEMORY_TOML = '[memory]\nengine = "pgvector"\n\n[memory.embedding]\nrerank_model = "svc/rerank"\nrerank_read_timeout_s = 30\n';
const as = (agent: string, priv = false) => ({ 'x-svc-agent': agent, ...(priv && { 'x-svc-private': 'true' }) });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method: 'POST', body, headers });
const textOf = (i: number) => `note ${i}: the ${['red', 'green', 'blue', 'amber'][i % 4]} ${['fox', 'kite', 'lamp', 'river', 'stone'][i % 5]} number ${i * 7919 % 1000}`;

/** Every item the agent may list, page by page. */
async function listAll(agent = 'anonymous'): Promise<Array<{ id: string; text: string }>> {
  const items: Array<{ id: string; text: string }> = [];
  let cursor: string | null = null;
  do {
    const page = await api(gw.url, `/api/memory/list?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: as(agent) });
    expect(page.status, page.text).toBe(200);
    items.push(...page.json.items);
    cursor = page.json.next_cursor;
  } while (cursor);
  return items;
}

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }, { name: 'rank', provider: 'builtin', type: 'reranking', model: 'tiny-rerank' }]);
  home.write('svc.toml', MEMORY_TOML);
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  // The database process of the gateway killed in the burst; it ends by itself when its
  // gateway is gone, so this kills only one that is still that process.
  for (const pid of orphans) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pg-process')) process.kill(pid, 'SIGKILL');
    } catch {
      // gone already, as it should be
    }
  }
});

describe('memory on the embedded pgvector engine', () => {
  const added: Array<{ id: string; text: string }> = [];

  it('reports the engine without starting it, then adds 200 items and finds the exact text of one first', async () => {
    const before = await api(gw.url, '/api/memory/engine');
    expect(before.status).toBe(200);
    expect(before.json).toMatchObject({ enabled: true, engine: 'pgvector', reachable: false });
    for (let i = 0; i < 200; i++) {
      const answer = await post('/api/memory/add', { text: textOf(i), dataset: i % 2 ? 'odd' : 'even', tags: [`n${i}`], metadata: { i } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.id).toEqual(expect.any(String));
      expect(Date.parse(answer.json.timestamp)).not.toBeNaN();
      added.push({ id: answer.json.id, text: textOf(i) });
    }
    for (const i of [0, 137, 199]) {
      const found = await post('/api/memory/search', { query: textOf(i), limit: 5 });
      expect(found.status, found.text).toBe(200);
      expect(found.json.items[0]).toMatchObject({ id: added[i]!.id, text: textOf(i), dataset: i % 2 ? 'odd' : 'even', metadata: { i }, bank: 'shared' });
      expect(found.json.items[0].tags).toEqual(expect.arrayContaining([`n${i}`, 'agent:anonymous']));
    }
    const engine = await api(gw.url, '/api/memory/engine');
    expect(engine.json).toMatchObject({ reachable: true, kind: 'embedded', banks_total: 1 });
    expect(engine.json.pid).toEqual(expect.any(Number));
    const banks = await api(gw.url, '/api/memory/banks');
    expect(banks.json.banks).toEqual([expect.objectContaining({ id: 'shared', items: 200, dimension: expect.any(Number) })]);
  }, 300_000);

  it('filters a search by dataset in the query', async () => {
    const found = await post('/api/memory/search', { query: textOf(137), limit: 20, dataset: 'even' });
    expect(found.status).toBe(200);
    expect(found.json.items.length).toBeGreaterThan(0);
    expect(found.json.items.every((item: { dataset: string }) => item.dataset === 'even')).toBe(true);
  });

  it('stores SQL metacharacters verbatim and returns them as sent', async () => {
    const text = `Robert'); DROP TABLE memories;-- \\ % _ $1 "quoted" ${'`'}tick${'`'} ünïcode`;
    const answer = await post('/api/memory/add', { text, tags: ["o'hara", '%;--'], metadata: { sql: "' OR 1=1 --" } });
    expect(answer.status, answer.text).toBe(200);
    const found = await post('/api/memory/search', { query: text, limit: 1 });
    expect(found.json.items[0]).toMatchObject({ id: answer.json.id, text, metadata: { sql: "' OR 1=1 --" } });
    expect(found.json.items[0].tags).toEqual(expect.arrayContaining(["o'hara", '%;--']));
    added.push({ id: answer.json.id, text });
  });

  it("keeps a private item to its agent: another agent's search, recall and list never see it", async () => {
    const secret = 'alice keeps the spare key under the third blue flowerpot';
    const mine = await post('/api/memory/add', { text: secret }, as('alice', true));
    expect(mine.status, mine.text).toBe(200);
    const spoofed = await post('/api/memory/add', { text: 'bob tries to tag his note private for alice', tags: ['visibility:private', 'agent:alice'] }, as('bob'));
    expect(spoofed.status).toBe(200);
    const bobSearch = await post('/api/memory/search', { query: secret, limit: 50 }, as('bob'));
    expect(bobSearch.json.items.map((i: { id: string }) => i.id)).not.toContain(mine.json.id);
    const bobRecall = await post('/api/memory/recall', { query: secret }, as('bob'));
    expect(bobRecall.status).toBe(200);
    expect(bobRecall.json.items.map((i: { id: string }) => i.id)).not.toContain(mine.json.id);
    expect((await listAll('bob')).map((i) => i.id)).not.toContain(mine.json.id);
    const aliceSearch = await post('/api/memory/search', { query: secret, limit: 1 }, as('alice'));
    expect(aliceSearch.json.items[0]).toMatchObject({ id: mine.json.id, tags: expect.arrayContaining(['agent:alice', 'visibility:private']) });
    // The tags a client sends for itself are the gateway's to set: bob's note is his, and public.
    const bobNote = (await post('/api/memory/search', { query: 'bob tries to tag his note private for alice', limit: 1 }, as('carol'))).json.items[0];
    expect(bobNote.id).toBe(spoofed.json.id);
    expect(bobNote.tags).toEqual(['agent:bob']);
    // Knowing the id is not enough: bob's delete passes over alice's private item; alice's own removes it.
    expect((await post('/api/memory/delete', { ids: [mine.json.id] }, as('bob'))).json).toEqual({ deleted: 0 });
    expect((await post('/api/memory/search', { query: secret, limit: 1 }, as('alice'))).json.items[0].id).toBe(mine.json.id);
    expect((await post('/api/memory/delete', { ids: [mine.json.id] }, as('alice'))).json).toEqual({ deleted: 1 });
  });

  it('recalls with the rerank pass, within the token budget', async () => {
    const recall = await post('/api/memory/recall', { query: textOf(42), max_tokens: 200 });
    expect(recall.status, recall.text).toBe(200);
    expect(recall.json.rerank).toBe('applied');
    const tokens = recall.json.items.reduce((sum: number, item: { text: string }) => sum + Math.floor(item.text.length / 4), 0);
    expect(recall.json.items.length).toBeGreaterThan(1);
    expect(tokens).toBeLessThanOrEqual(200);
    const one = await post('/api/memory/recall', { query: textOf(42), max_tokens: 12 });
    expect(one.json.items.length).toBeLessThanOrEqual(1);
  }, 120_000);

  it('lists with a bank@offset cursor, every item once', async () => {
    const all = await listAll();
    expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
    expect(all.map((i) => i.id)).toEqual(expect.arrayContaining(added.map((a) => a.id)));
    const first = await api(gw.url, '/api/memory/list?limit=7');
    expect(first.json.next_cursor).toBe('shared@7');
  });

  it('answers the CLI: svc memory add, search, recall, banks, with --agent and --private', async () => {
    const env = { SVC_API_URL: gw.url };
    const add = await runSvcAsync(['memory', 'add', 'the', 'cli', 'remembers', 'the', 'violet', 'umbrella', '--agent', 'dora', '--private', '--json'], { home: home.home, env });
    expect(add.status, add.stderr).toBe(0);
    const id = (JSON.parse(add.stdout) as { id: string }).id;
    const mine = await runSvcAsync(['memory', 'search', 'the cli remembers the violet umbrella', '--agent', 'dora', '--json'], { home: home.home, env });
    expect(mine.status, mine.stderr).toBe(0);
    expect((JSON.parse(mine.stdout) as { items: Array<{ id: string }> }).items[0]!.id).toBe(id);
    const theirs = await runSvcAsync(['memory', 'search', 'the cli remembers the violet umbrella', '-n', '50', '--json'], { home: home.home, env });
    expect((JSON.parse(theirs.stdout) as { items: Array<{ id: string }> }).items.map((i) => i.id)).not.toContain(id);
    const table = await runSvcAsync(['memory', 'search', 'violet umbrella', '--agent', 'dora'], { home: home.home, env });
    expect(table.stdout).toMatch(/^ID\s+SCORE\s+BANK\s+TEXT/);
    expect(table.stdout).toContain(id);
    const recall = await runSvcAsync(['memory', 'recall', 'violet umbrella', '--agent', 'dora', '--max-tokens', '500'], { home: home.home, env });
    expect(recall.status, recall.stderr).toBe(0);
    expect(recall.stdout).toMatch(/^rerank: (applied|skipped|timeout|error)$/m);
    const banks = await runSvcAsync(['memory', 'banks'], { home: home.home, env });
    expect(banks.stdout).toMatch(/^BANK\s+ITEMS\s+DIMENSION\s+CREATED/);
    expect(banks.stdout).toContain('shared');
    const bad = await runSvcAsync(['memory', 'add', 'hi', '--agent', 'not ok'], { home: home.home, env });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('memory.agent_id_invalid');
  }, 120_000);

  it('refuses a list cursor for a bank the caller does not read', async () => {
    const answer = await api(gw.url, '/api/memory/list?cursor=private__alice@0');
    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('memory.invalid_bank');
  });

  it('deletes by id, with an activity row and an event', async () => {
    const victim = await post('/api/memory/add', { text: 'a note to be deleted soon' });
    const gone = await post('/api/memory/delete', { ids: [victim.json.id] });
    expect(gone.json).toEqual({ deleted: 1 });
    expect((await post('/api/memory/delete', { ids: [victim.json.id] })).json).toEqual({ deleted: 0 });
    const activity = await api(gw.url, '/api/activity?action=memory.delete&limit=5');
    expect(JSON.stringify(activity.json)).toContain(victim.json.id);
    const events = await api(gw.url, '/api/events?limit=500');
    const types = (events.json.events as Array<{ type: string }>).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['memory.added', 'memory.deleted']));
  });

  it('refuses a bank delete without confirm, and deletes (audited) with it', async () => {
    const made = await api(gw.url, '/api/memory/banks/scratch', { method: 'PUT', body: {} });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ id: 'scratch', items: 0 });
    const refused = await api(gw.url, '/api/memory/banks/scratch', { method: 'DELETE' });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toBe('memory.confirm_required');
    const wrong = await api(gw.url, '/api/memory/banks/scratch?confirm=shared', { method: 'DELETE' });
    expect(wrong.json.error.code).toBe('memory.confirm_required');
    const deleted = await api(gw.url, '/api/memory/banks/scratch', { method: 'DELETE', body: { confirm: 'scratch' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toEqual({ deleted: 'scratch', items: 0 });
    expect((await api(gw.url, '/api/memory/banks/scratch/stats')).json.error.code).toBe('memory.bank_not_found');
    const audit = await api(gw.url, '/api/activity?action=memory.bank_delete&limit=5');
    expect(JSON.stringify(audit.json)).toContain('scratch');
    const stats = await api(gw.url, '/api/memory/banks/shared/stats');
    expect(stats.json).toMatchObject({ id: 'shared', items: expect.any(Number) });
  }, 60_000);

  it('finds everything again after a restart', async () => {
    expect(await gw.stop()).toBe(0);
    gw = await startGateway(home.home);
    const ids = new Set((await listAll()).map((i) => i.id));
    for (const a of added) expect(ids.has(a.id)).toBe(true);
    const found = await post('/api/memory/search', { query: textOf(88), limit: 3 });
    expect(found.json.items[0].id).toBe(added[88]!.id);
  }, 120_000);

  it('keeps every acknowledged write through a SIGKILL of the gateway in a burst of writes', async () => {
    const pid = (await api(gw.url, '/api/memory/engine')).json.pid as number | null;
    if (pid) orphans.push(pid);
    const acked: string[] = [];
    const burst = Array.from({ length: 40 }, (_, i) => post('/api/memory/add', { text: `burst write ${i} of the kill test` }).then(
      (answer) => {
        if (answer.status === 200) acked.push(answer.json.id);
        if (acked.length === 10) void gw.kill();
      },
      () => undefined, // cut off by the kill: not acknowledged
    ));
    await Promise.all(burst);
    await gw.kill();
    expect(acked.length).toBeGreaterThanOrEqual(10);
    gw = await startGateway(home.home);
    const ids = new Set((await listAll()).map((i) => i.id));
    for (const id of acked) expect(ids.has(id)).toBe(true);
    for (const a of added) expect(ids.has(a.id)).toBe(true);
  }, 180_000);

  it('recalls in the fused order when the rerank slot is gone', async () => {
    const removed = await api(gw.url, '/api/slots/rank?force=true', { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    const recall = await post('/api/memory/recall', { query: textOf(42), max_tokens: 100_000 });
    expect(recall.status, recall.text).toBe(200);
    expect(recall.json.rerank).toBe('error');
    const search = await post('/api/memory/search', { query: textOf(42), limit: 50 });
    expect(recall.json.items.map((i: { id: string }) => i.id)).toEqual(search.json.items.map((i: { id: string }) => i.id));
  }, 60_000);

  it('recalls in the fused order when the rerank slot cannot answer within the timeouts (a stopped slot that must load first)', async () => {
    home.write('slots/rank2.toml', `[slot]\nname = "rank2"\ntype = "reranking"\nprovider = "builtin"\nport = ${await freeSlotPort()}\ndevice = "cpu"\n\n[model]\ndefault = "tiny-rerank"\ncontext_size = 512\n`);
    expect((await post('/api/settings/reload', {})).status).toBe(200);
    expect((await post('/api/slots/rank2/unload', {})).status).toBe(200);
    const put = await api(gw.url, '/api/settings', { method: 'PUT', body: { memory: { embedding: { rerank_connect_timeout_s: 0.05, rerank_read_timeout_s: 0.05 } } } });
    expect(put.status, put.text).toBe(200);
    const recall = await post('/api/memory/recall', { query: textOf(42), max_tokens: 100_000 });
    expect(recall.status, recall.text).toBe(200);
    expect(recall.json.rerank).toBe('timeout');
    const search = await post('/api/memory/search', { query: textOf(42), limit: 50 });
    expect(recall.json.items.map((i: { id: string }) => i.id)).toEqual(search.json.items.map((i: { id: string }) => i.id));
  }, 60_000);
});
