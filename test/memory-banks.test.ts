// The bank admin routes end to end (docs/memory.md, "Banks"): a real gateway with the built-in
// engine's embedding slot on the tiny model and [memory] engine = "pgvector" (the embedded
// database process). A bank's fields (PUT, PATCH), memories, documents, tags, export and
// import, a delete by dataset, bad input on each route; and a re-embedding: a bank holding
// vectors of another dimension (another model's, brought in by an import) refuses writes and
// searches with memory.dimension_mismatch until `svc memory reembed` has rebuilt it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, runSvcAsync, startGateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

let home: TempHome;
let gw: Gateway;
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => api(gw.url, path, { method, body, headers });
const ndjson = (path: string, raw: string) => api(gw.url, path, { method: 'POST', raw, headers: { 'content-type': 'application/x-ndjson' } });
const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string; embedding: number[]; document_id: string | null });
const METACHARACTERS = `'; DROP TABLE memory_items; -- "quoted" \\ $1 %_ \u0000-free`.replace('\u0000-free', 'ok');

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'embed', provider: 'builtin', type: 'embedding' }]);
  home.write('svc.toml', '[memory]\nengine = "pgvector"\n');
  gw = await startGateway(home.home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

describe('bank administration on the embedded pgvector engine', () => {
  const ids: string[] = [];

  it('PUT creates a bank with its fields, PATCH merges, a GET shows it; another dimension is 409 naming reembed', async () => {
    const made = await call('PUT', '/api/memory/banks/notes', { name: METACHARACTERS, description: 'team notes', config: { a: 1, b: { c: 2 } } });
    expect(made.status, made.text).toBe(200);
    expect(made.json).toMatchObject({ id: 'notes', name: METACHARACTERS, description: 'team notes', config: { a: 1, b: { c: 2 } }, items: 0 });
    const dimension = made.json.dimension as number;
    expect(dimension).toBeGreaterThan(0);
    const patched = await call('PATCH', '/api/memory/banks/notes', { config: { b: 3, d: 'x' }, description: null });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.json).toMatchObject({ name: METACHARACTERS, description: null, config: { a: 1, b: 3, d: 'x' } });
    expect((await call('GET', '/api/memory/banks/notes')).json).toEqual(patched.json);
    const other = await call('PUT', '/api/memory/banks/notes', { dimension: dimension + 1 });
    expect(other.status).toBe(409);
    expect(other.json.error).toMatchObject({ code: 'memory.dimension_mismatch', details: { bank: 'notes', bank_dimension: dimension, model_dimension: dimension + 1 } });
    expect(other.json.error.message).toContain('svc memory reembed notes');
    expect((await call('PATCH', '/api/memory/banks/nope', { name: 'x' })).json.error.code).toBe('memory.bank_not_found');
    const listed = (await call('GET', '/api/memory/banks')).json.banks.find((b: { id: string }) => b.id === 'notes');
    expect(listed).toMatchObject({ config: { a: 1, b: 3, d: 'x' } });
  }, 180_000); // the database's first start runs initdb, and the embedding slot loads

  it('lists a bank\'s memories in pages, one by id, its documents and tags; deletes one and a document', async () => {
    for (let i = 0; i < 7; i++) {
      const added = await call('POST', '/api/memory/add', { text: `${METACHARACTERS} item ${i}`, document_id: `doc-${i % 2}`, tags: ['all', `t${i % 3}`], dataset: i < 5 ? 'keep' : 'drop' });
      expect(added.status, added.text).toBe(200);
      ids.push(added.json.id);
    }
    const first = await call('GET', '/api/memory/banks/shared/memories?limit=4');
    expect(first.json.items).toHaveLength(4);
    expect(first.json.next_offset).toBe(4);
    const rest = await call('GET', '/api/memory/banks/shared/memories?limit=4&offset=4');
    expect([...first.json.items, ...rest.json.items].map((i: { id: string }) => i.id)).toEqual(ids);
    expect(rest.json.next_offset).toBeNull();
    const one = await call('GET', `/api/memory/banks/shared/memories/${ids[2]}`);
    expect(one.json).toMatchObject({ id: ids[2], text: `${METACHARACTERS} item 2`, source: 'doc-0', tags: expect.arrayContaining(['all', 't2']) });
    expect((await call('GET', '/api/memory/banks/shared/memories/00000000-0000-0000-0000-000000000000')).json.error.code).toBe('memory.item_not_found');
    expect((await call('GET', `/api/memory/banks/shared/memories/${encodeURIComponent("x' OR 1=1 --")}`)).json.error.code).toBe('memory.item_not_found');

    const documents = await call('GET', '/api/memory/banks/shared/documents');
    expect(documents.json.documents.map((d: { document_id: string; items: number }) => [d.document_id, d.items])).toEqual([['doc-0', 4], ['doc-1', 3]]);
    const doc = await call('GET', '/api/memory/banks/shared/documents/doc-1');
    expect(doc.json.items.map((i: { id: string }) => i.id)).toEqual([ids[1], ids[3], ids[5]]);
    const tags = await call('GET', '/api/memory/banks/shared/tags');
    expect(tags.json.tags).toEqual(expect.arrayContaining([{ tag: 'all', count: 7 }, { tag: 't0', count: 3 }, { tag: 'agent:anonymous', count: 7 }]));

    expect((await call('DELETE', `/api/memory/banks/shared/memories/${ids[0]}`)).json).toEqual({ deleted: 1 });
    expect((await call('GET', `/api/memory/banks/shared/memories/${ids[0]}`)).status).toBe(404);
    expect((await call('DELETE', '/api/memory/banks/shared/documents/doc-1')).json).toEqual({ document_id: 'doc-1', deleted: 3 });
    expect((await call('GET', '/api/memory/banks/shared/documents/doc-1')).json.error.code).toBe('memory.item_not_found');
    const audit = await call('GET', '/api/activity?action=memory.document_delete&limit=5');
    expect(JSON.stringify(audit.json)).toContain('doc-1');
  });

  it('deletes by dataset, only what the caller may read', async () => {
    const secret = await call('POST', '/api/memory/add', { text: 'a private note', dataset: 'drop' }, { 'x-svc-agent': 'zoe', 'x-svc-private': '1' });
    const gone = await call('POST', '/api/memory/delete', { dataset: 'drop' });
    expect(gone.json).toEqual({ deleted: 1 }); // ids[6]; ids[5] went with doc-1; zoe's private one stays
    expect((await call('GET', `/api/memory/banks/shared/memories/${secret.json.id}`)).status).toBe(200);
    expect((await call('POST', '/api/memory/delete', { dataset: 'keep', ids: [ids[2]] })).json).toEqual({ deleted: 1 });
    expect((await call('POST', '/api/memory/delete', { dataset: 'drop' }, { 'x-svc-agent': 'zoe' })).json).toEqual({ deleted: 1 });
  });

  it('exports JSON lines with embeddings and imports them: skip, replace, new-id; checks lines and the dimension', async () => {
    const exported = await call('GET', '/api/memory/banks/shared/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const rows = lines(exported.text);
    expect(rows.map((r) => r.id).sort()).toEqual([ids[4]].sort());
    expect(rows[0]!.text).toBe(`${METACHARACTERS} item 4`);
    const dimension = rows[0]!.embedding.length;

    // Into another bank on the same database: the id is shared's, so the copy takes a new one.
    const into = await ndjson('/api/memory/banks/copy/import', exported.text);
    expect(into.status, into.text).toBe(200);
    expect(into.json).toEqual({ bank: 'copy', added: 1, replaced: 0, skipped: 0, on_conflict: 'skip' });
    const copyExport = (await call('GET', '/api/memory/banks/copy/export')).text;
    const own = lines(copyExport)[0]!;
    expect(own.id).not.toBe(rows[0]!.id);
    expect(own.text).toBe(rows[0]!.text);
    // Its own id again: skip leaves it, new-id adds a copy, replace replaces it.
    expect((await ndjson('/api/memory/banks/copy/import', copyExport)).json).toMatchObject({ added: 0, skipped: 1 });
    expect((await ndjson('/api/memory/banks/copy/import?on_conflict=new-id', copyExport)).json).toMatchObject({ added: 1, skipped: 0 });
    expect(lines((await call('GET', '/api/memory/banks/copy/export')).text)).toHaveLength(2);
    const replaced = await ndjson('/api/memory/banks/copy/import?on_conflict=replace', `${JSON.stringify({ ...own, text: 'replaced text' })}\n`);
    expect(replaced.json).toMatchObject({ added: 0, replaced: 1 });
    expect((await call('GET', `/api/memory/banks/copy/memories/${own.id}`)).json.text).toBe('replaced text');

    const wrongDim = await ndjson('/api/memory/banks/copy/import', `${JSON.stringify({ ...own, id: 'x', embedding: [0.5, 0.5] })}\n`);
    expect(wrongDim.status).toBe(409);
    expect(wrongDim.json.error.details).toMatchObject({ bank: 'copy', bank_dimension: dimension, model_dimension: 2, line: 1 });
    const bad = await ndjson('/api/memory/banks/copy/import', `${JSON.stringify(own)}\n{not json\n`);
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'memory.import_invalid', details: { line: 2 } });
    const missing = await ndjson('/api/memory/banks/copy/import', `${JSON.stringify({ id: 'x', timestamp: own.id })}\n`);
    expect(missing.json.error.code).toBe('memory.import_invalid');
    expect(missing.json.error.details.problems.map((p: { path: string }) => p.path)).toEqual(expect.arrayContaining(['text', 'embedding', 'timestamp']));
    expect((await call('GET', '/api/memory/banks/copy/stats')).json.items).toBe(2); // nothing of a refused import was written
  });

  it('refuses bad input on the bank routes', async () => {
    const problem = async (answer: Promise<Awaited<ReturnType<typeof api>>>, code: string, path?: string) => {
      const got = await answer;
      expect(got.json?.error?.code, got.text).toBe(code);
      if (path) expect(got.json.error.details.problems.map((p: { path: string }) => p.path)).toContain(path);
    };
    await problem(call('PATCH', '/api/memory/banks/notes', { name: 42 }), 'request.invalid', 'name');
    await problem(call('PATCH', '/api/memory/banks/notes', { config: 'x' }), 'request.invalid', 'config');
    await problem(call('PATCH', '/api/memory/banks/notes', { dimension: 3 }), 'request.invalid', 'dimension');
    await problem(call('PATCH', '/api/memory/banks/notes', ['x']), 'request.not_an_object');
    await problem(call('PUT', '/api/memory/banks/notes', { name: 'x'.repeat(257) }), 'request.invalid', 'name');
    await problem(call('GET', '/api/memory/banks/shared/memories?limit=0'), 'request.invalid', 'limit');
    await problem(call('GET', '/api/memory/banks/shared/memories?offset=-1'), 'request.invalid', 'offset');
    await problem(call('GET', '/api/memory/banks/shared/documents?limit=x'), 'request.invalid', 'limit');
    await problem(ndjson('/api/memory/banks/copy/import?on_conflict=merge', ''), 'request.invalid', 'on_conflict');
    await problem(call('POST', '/api/memory/banks/copy/import', { lines: [] }), 'request.invalid', 'body');
    await problem(call('POST', '/api/memory/delete', { dataset: 7 }), 'request.invalid', 'dataset');
    for (const bad of ['a.b', "x'; DROP TABLE memory_banks;--", 'a b', 'ü']) {
      const id = encodeURIComponent(bad);
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['GET', '/memories'], ['GET', '/documents'], ['GET', '/tags'], ['GET', '/export'], ['POST', '/reembed'], ['GET', '/reembed']] as const) {
        await problem(call(method, `/api/memory/banks/${id}${path}`, method === 'PATCH' ? {} : undefined), 'memory.invalid_bank');
      }
    }
    await problem(call('GET', '/api/memory/banks/nope/tags'), 'memory.bank_not_found');
    await problem(call('GET', '/api/memory/banks/nope/export'), 'memory.bank_not_found');
  });

  it('a bank of another dimension refuses writes and searches (409) until `svc memory reembed` rebuilds it', async () => {
    // `shared` holds 3-dimensional vectors, as if made by another embedding model.
    expect((await call('DELETE', '/api/memory/banks/shared?confirm=shared')).status).toBe(200);
    const texts = ['the lighthouse keeper counts gulls', 'a kettle sings on the stove', 'rain drums the tin roof'];
    const foreign = texts.map((text, i) => JSON.stringify({ id: `0000000${i}-0000-4000-8000-000000000000`, text, timestamp: new Date(Date.UTC(2026, 0, i + 1)).toISOString(), embedding: [1, i, 0.5] })).join('\n');
    expect((await ndjson('/api/memory/banks/shared/import', foreign)).json).toMatchObject({ added: 3 });
    const add = await call('POST', '/api/memory/add', { text: 'refused' });
    expect(add.status).toBe(409);
    expect(add.json.error).toMatchObject({ code: 'memory.dimension_mismatch', details: { bank: 'shared', bank_dimension: 3 } });
    expect(add.json.error.message).toContain('svc memory reembed shared');
    expect((await call('POST', '/api/memory/search', { query: 'gulls' })).json.error.code).toBe('memory.dimension_mismatch');
    expect((await call('GET', '/api/memory/banks/shared/reembed')).json.error.code).toBe('memory.item_not_found');

    const cli = await runSvcAsync(['memory', 'reembed', 'shared', '--json'], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(cli.status, cli.stderr).toBe(0);
    const job = JSON.parse(cli.stdout);
    expect(job).toMatchObject({ bank: 'shared', state: 'done', total: 3, done: 3, from_dimension: 3, model: 'svc/embed' });
    expect(job.to_dimension).toBeGreaterThan(3);
    expect((await call('GET', '/api/memory/banks/shared')).json.dimension).toBe(job.to_dimension);
    const found = await call('POST', '/api/memory/search', { query: texts[1] });
    expect(found.status, found.text).toBe(200);
    expect(found.json.items[0].text).toBe(texts[1]);
    expect((await call('POST', '/api/memory/add', { text: 'accepted now' })).status).toBe(200);
    const events = await call('GET', '/api/events?type=memory.reembed.*&limit=50');
    expect(events.json.events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['memory.reembed.started', 'memory.reembed.completed']));
    const last = await waitFor(async () => (await call('GET', '/api/memory/banks/shared/reembed')).json, { what: 'the job to be kept', until: (j) => j.state === 'done' });
    expect(last.id).toBe(job.id);
  }, 120_000);

  it('answers the CLI: banks show, create, export, import, delete', async () => {
    const env = { SVC_API_URL: gw.url };
    const run = (...args: string[]) => runSvcAsync(args, { home: home.home, env });
    const created = await run('memory', 'banks', 'create', 'cli-bank', '--name', 'From the CLI', '--json');
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 'cli-bank', name: 'From the CLI' });
    const show = await run('memory', 'banks', 'show', 'cli-bank');
    expect(show.stdout).toMatch(/^FIELD\s+VALUE/);
    expect(show.stdout).toContain('From the CLI');
    const file = `${home.home}/copy.jsonl`;
    expect((await run('memory', 'banks', 'export', 'copy', '-o', file)).status).toBe(0);
    const imported = await run('memory', 'banks', 'import', 'cli-bank', file, '--json');
    expect(imported.status, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ bank: 'cli-bank', added: 2 });
    const refused = await run('memory', 'banks', 'delete', 'cli-bank');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--yes');
    const deleted = await run('memory', 'banks', 'delete', 'cli-bank', '--yes');
    expect(deleted.stdout).toContain('deleted bank cli-bank (2 memories)');
  }, 60_000);
});
