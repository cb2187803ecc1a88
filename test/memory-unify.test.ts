// `svc memory migrate unify` end to end (docs/memory.md, "Unifying banks"): a real gateway with
// the built-in engine's embedding slot on the tiny model and the embedded pgvector database,
// unified_bank = false so an agent's private writes land in its own bank (private__hermes).
// The dry-run prints the plan and writes nothing; --apply copies with the identity tags (the
// copies stay private to their agent in the shared bank), a second run meets its own copies
// (skip, replace); an unknown source, the target as a source and another dimension are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, runSvcAsync, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

let home: TempHome;
let gw: Gateway;
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method, body, headers });
const hermes = { 'x-svc-agent': 'hermes', 'x-svc-private': '1' };
const svc = (...args: string[]) => runSvcAsync(['memory', 'migrate', 'unify', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
const METACHARACTERS = `'; DROP TABLE memory_items; -- "quoted" \\ $1 %_`;

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\nunified_bank = false\n');
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('svc memory migrate unify on the embedded pgvector engine', () => {
  const privateTexts = [`hermes likes the harbour at dawn ${METACHARACTERS}`, 'hermes keeps the ledger in the blue drawer', 'hermes owes the baker two loaves'];

  it('the dry-run prints the plan (facts, last activity, tags to add) and writes nothing', async () => {
    for (const text of privateTexts) expect((await call('POST', '/api/memory/add', { text, tags: ['ledger'] }, hermes)).status).toBe(200);
    expect((await call('POST', '/api/memory/add', { text: 'the shared kettle is broken' })).status).toBe(200);
    const before = (await call('GET', '/api/memory/banks')).json.banks as Array<{ id: string; items: number }>;
    expect(before.map((b) => [b.id, b.items])).toEqual([['private__hermes', 3], ['shared', 1]]);

    const plan = await svc('--source', 'private__hermes', '--target', 'shared', '--add-tag', 'from:hermes');
    expect(plan.status, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('memory · migrate unify → shared (dry-run)');
    expect(plan.stdout).toMatch(/SOURCE\s+FACTS\s+LAST ACTIVITY\s+TAGS TO ADD/);
    expect(plan.stdout).toMatch(/private__hermes\s+3\s+\d{4}-\d\d-\d\dT/);
    expect(plan.stdout).toContain('agent:hermes, visibility:private, from:hermes');
    expect(plan.stdout).toContain('This is a plan only — nothing was written');

    const asJson = await svc('--source', 'private__hermes', '--json');
    expect(asJson.status, asJson.stderr).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ target: 'shared', dry_run: true, on_conflict: 'skip', totals: { items: 3, added: 0 }, sources: [{ bank: 'private__hermes', items: 3, tags_to_add: ['agent:hermes', 'visibility:private'] }] });
    expect((await call('GET', '/api/memory/banks/shared')).json.items).toBe(1);
    expect((await call('GET', '/api/activity?action=memory.unify&limit=5')).json.items).toHaveLength(0);
  }, 180_000); // the database's first start runs initdb, and the embedding slot loads

  it('--apply copies with the tags added: the copies stay private to hermes in shared; an event and an activity row', async () => {
    const applied = await svc('--source', 'private__hermes', '--apply', '--add-tag', 'from:hermes', '--json');
    expect(applied.status, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout)).toMatchObject({ dry_run: false, totals: { added: 3, replaced: 0, skipped: 0 }, sources: [{ bank: 'private__hermes', added: 3 }] });
    expect((await call('GET', '/api/memory/banks/shared')).json.items).toBe(4);
    expect((await call('GET', '/api/memory/banks/private__hermes')).json.items).toBe(3); // the source is kept

    const asHermes = await call('GET', '/api/memory/list?bank=shared', undefined, { 'x-svc-agent': 'hermes' });
    const copies = (asHermes.json.items as Array<{ text: string; tags: string[] }>).filter((i) => privateTexts.includes(i.text));
    expect(copies.map((c) => c.text).sort()).toEqual([...privateTexts].sort()); // stored verbatim
    for (const copy of copies) expect(copy.tags).toEqual(expect.arrayContaining(['ledger', 'agent:hermes', 'visibility:private', 'from:hermes']));
    const asOther = await call('GET', '/api/memory/list?bank=shared', undefined, { 'x-svc-agent': 'pi' });
    expect(asOther.json.items.map((i: { text: string }) => i.text)).toEqual(['the shared kettle is broken']);
    const found = await call('POST', '/api/memory/search', { query: privateTexts[1], limit: 10 }, { 'x-svc-agent': 'hermes' });
    expect(found.json.items.filter((i: { bank: string; text: string }) => i.bank === 'shared' && i.text === privateTexts[1])).toHaveLength(1);

    const activity = await call('GET', '/api/activity?action=memory.unify&limit=5');
    expect(JSON.stringify(activity.json)).toContain('private__hermes');
    const events = await call('GET', '/api/events?limit=500');
    const unified = (events.json.events as Array<{ type: string; data: Record<string, unknown> }>).filter((e) => e.type === 'memory.unified');
    expect(unified.at(-1)?.data).toMatchObject({ target: 'shared', sources: ['private__hermes'], added: 3 });
  }, 120_000);

  it('a second run meets its own copies: skipped, or replaced; the plain CLI prints the counts', async () => {
    const again = await svc('--source', 'private__hermes', '--apply');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('memory · migrate unify → shared');
    expect(again.stdout).toContain('unified into shared: 0 added, 0 replaced, 3 skipped');
    const replaced = await call('POST', '/api/memory/migrate/unify', { sources: ['private__hermes'], apply: true, on_conflict: 'replace' });
    expect(replaced.json.totals).toEqual({ items: 3, added: 0, replaced: 3, skipped: 0 });
    expect((await call('GET', '/api/memory/banks/shared')).json.items).toBe(4);
  }, 120_000);

  it('refuses an unknown source, the target as a source, a bank of another dimension and bad bodies', async () => {
    const unknown = await call('POST', '/api/memory/migrate/unify', { sources: ['private__nobody'] });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: 'memory.bank_not_found', details: { bank: 'private__nobody' } });
    const cli = await svc('--source', 'private__nobody');
    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toContain('private__nobody');

    const self = await call('POST', '/api/memory/migrate/unify', { sources: ['shared'], target: 'shared' });
    expect(self.status).toBe(400);
    expect(self.json.error.code).toBe('request.invalid');

    const foreign = JSON.stringify({ id: '00000001-0000-4000-8000-000000000000', text: 'three numbers', timestamp: new Date().toISOString(), embedding: [1, 0, 0.5] });
    expect((await api(gw.url, '/api/memory/banks/old-model/import', { method: 'POST', raw: foreign, headers: { 'content-type': 'application/x-ndjson' } })).json).toMatchObject({ added: 1 });
    const mismatch = await call('POST', '/api/memory/migrate/unify', { sources: ['old-model'], apply: true });
    expect(mismatch.status).toBe(409);
    expect(mismatch.json.error).toMatchObject({ code: 'memory.dimension_mismatch', details: { bank: 'shared', model_dimension: 3 } });
    expect((await call('GET', '/api/memory/banks/shared')).json.items).toBe(4);

    for (const body of [{}, { sources: [] }, { sources: ['../etc'] }, { sources: ['x'], on_conflict: 'merge' }, { sources: ['x'], apply: 'yes' }, { sources: ['x'], extra: 1 }]) {
      const bad = await call('POST', '/api/memory/migrate/unify', body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.json.error.code).toBe('request.invalid');
    }
  }, 120_000);
});
