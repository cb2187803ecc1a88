// The memory store against real Postgres with pgvector: the embedded database process under
// its supervisor, and the same suite against a PGlite socket server started on its own as a
// `[memory].pgvector_url` server. One database process per mode (initdb takes ~7 s).
import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryEngineEventData } from '../src/protocol/events.js';
import { SvcError } from '../src/protocol/errors.js';
import { openMemoryStore } from '../src/memory/open-store.js';
import type { SqlMemoryStore } from '../src/memory/store.js';
import { searchSql } from '../src/memory/store-sql.js';
import { REPO_ROOT, tempHome } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const ENTRY = join(REPO_ROOT, 'dist/memory/db/pg-process.js');
const DIM = 16;
const random = () => Array.from({ length: DIM }, () => Math.random() * 2 - 1);
const METACHARACTERS = `'; DROP TABLE memory_items; -- \\ " $1 %_ \0x E'\\x00' $$ :: ${'`'}`.replace('\0', '');

/** A PGlite socket server of its own, as a user's Postgres server would be. */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [ENTRY, '--data', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"ready"'));
      if (line) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`pg-process exited ${code}`)));
  });
  return { child, url: `postgres://postgres:secret-never-logged@127.0.0.1:${port}/postgres` };
}

for (const mode of ['embedded', 'server'] as const) {
  describe(`the memory store (${mode})`, () => {
    const home = tempHome();
    const events: MemoryEngineEventData[] = [];
    let server: { child: ChildProcess; url: string } | null = null;
    let store: SqlMemoryStore;
    let idleS = 600;
    const open = () => openMemoryStore({ stateRoot: home.stateRoot, pgvectorUrl: server?.url ?? '', idleTimeoutS: () => idleS, onEngineState: (e) => events.push(e), entry: ENTRY });
    const items: Array<{ id: string; text: string; embedding: number[] }> = [];

    beforeAll(async () => {
      if (mode === 'server') server = await startServer(join(home.stateRoot, 'server-pg'));
      store = open();
    }, 120_000);

    it('reports the engine without starting the embedded process', async () => {
      const engine = await store.engine();
      if (mode === 'embedded') expect(engine).toEqual({ kind: 'embedded', reachable: false, version: null, pid: null, rss_bytes: null, banks_total: null, state: 'stopped' });
      else expect(engine).toMatchObject({ kind: 'server', reachable: true, pid: null, rss_bytes: null });
      expect(events).toEqual([]);
    });

    afterAll(async () => {
      await store?.close();
      server?.child.kill('SIGTERM');
      rmSync(home.home, { recursive: true, force: true });
    });

    it('adds 200 items; an item\'s exact vector and text find it first', async () => {
      for (let i = 0; i < 200; i++) {
        const embedding = random();
        const text = `memory number ${i} about topic${i % 7} with word${i}`;
        const added = await store.add('alpha', { text, embedding, dataset: i % 2 === 0 ? 'even' : 'odd', tags: [`t${i % 3}`], metadata: { i } });
        items.push({ id: added.id, text, embedding });
      }
      for (const probe of [items[0]!, items[77]!, items[199]!]) {
        const found = await store.search('alpha', { embedding: probe.embedding, text: probe.text, limit: 5 });
        expect(found[0]!.id).toBe(probe.id);
        expect(found[0]!.text).toBe(probe.text);
      }
      expect((await store.stats('alpha')).items).toBe(200);
      expect((await store.banks()).find((b) => b.id === 'alpha')).toMatchObject({ dimension: DIM, items: 200 });
    }, 120_000);

    it('filters in SQL: dataset, tags any/all, excluded tags, before/after', async () => {
      const probe = items[10]!;
      const even = await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 50, dataset: 'even' });
      expect(even.length).toBeGreaterThan(0);
      expect(even.every((r) => r.dataset === 'even')).toBe(true);
      // The vector side alone (no text matches), filtered: the index is read on until the limit is met.
      const vectorOnly = await store.search('alpha', { embedding: probe.embedding, text: 'zzzz', limit: 60, dataset: 'even' });
      expect(vectorOnly).toHaveLength(60);
      expect(vectorOnly.every((r) => r.dataset === 'even')).toBe(true);
      const t1 = await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 50, tags: ['t1'] });
      // A third of the items carry t1: a filter that matched nothing must not pass for one that holds.
      expect(t1.length).toBeGreaterThan(0);
      expect(t1.every((r) => r.tags.includes('t1'))).toBe(true);
      const none = await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 50, tags: ['t1', 't2'], tagsMatch: 'all' });
      expect(none).toEqual([]);
      const notT0 = await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 50, excludeTags: ['t0'] });
      expect(notT0.length).toBeGreaterThan(0);
      expect(notT0.some((r) => r.tags.includes('t0'))).toBe(false);
      expect(await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 5, before: '2000-01-01T00:00:00Z' })).toEqual([]);
      expect((await store.search('alpha', { embedding: probe.embedding, text: 'memory', limit: 5, after: '2000-01-01T00:00:00Z' })).length).toBe(5);
    });

    it('lists in pages, deletes by id, refuses another dimension', async () => {
      const first = await store.list('alpha', { offset: 0, limit: 50 });
      const second = await store.list('alpha', { offset: 50, limit: 50 });
      expect(first).toHaveLength(50);
      expect(new Set([...first, ...second].map((r) => r.id)).size).toBe(100);
      expect((await store.list('alpha', { dataset: 'odd', offset: 0, limit: 500 })).length).toBe(100);
      expect(await store.delete('alpha', [items[199]!.id, 'not-a-uuid'])).toBe(1);
      expect((await store.stats('alpha')).items).toBe(199);
      const refused = await store.add('alpha', { text: 'x', embedding: [1, 2, 3] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SvcError);
      expect((refused as SvcError).code).toBe('memory.dimension_mismatch');
      expect((refused as SvcError).status).toBe(409);
    });

    it('stores and returns SQL metacharacters verbatim, in every string', async () => {
      const bank = `bank ${METACHARACTERS}`;
      const embedding = random();
      const added = await store.add(bank, { text: METACHARACTERS, embedding, dataset: METACHARACTERS, tags: [METACHARACTERS], metadata: { [METACHARACTERS]: METACHARACTERS }, document_id: METACHARACTERS, type: METACHARACTERS });
      const [row] = await store.search(bank, { embedding, text: METACHARACTERS, limit: 1, dataset: METACHARACTERS, tags: [METACHARACTERS] });
      expect(row).toMatchObject({ id: added.id, bank, text: METACHARACTERS, dataset: METACHARACTERS, tags: [METACHARACTERS], metadata: { [METACHARACTERS]: METACHARACTERS }, source: METACHARACTERS, type: METACHARACTERS });
      expect((await store.banks()).map((b) => b.id)).toContain(bank);
      expect(await store.deleteBank(bank)).toBe(1);
      expect((await store.stats('alpha')).items).toBe(199);
    });

    it('answers the vector side of a search from the HNSW index (EXPLAIN)', async () => {
      const { sql, params } = searchSql('alpha', { embedding: random(), text: 'memory', limit: 10 });
      const db = (store as unknown as { db: { query(sql: string, p: unknown[]): Promise<{ rows: Array<Record<string, string>> }> } }).db;
      // With statistics the planner rightly scans a table this small exactly; priced as a big
      // bank is (scans and sorts dearer than the index), the vector side takes the HNSW index.
      const plan = await store.db.transaction(async (client) => {
        await client.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off');
        return ((await client.query(`EXPLAIN ${sql}`, params)).rows as Array<Record<string, string>>).map((r) => r['QUERY PLAN']).join('\n');
      });
      expect(plan).toContain(`memory_items_hnsw_${DIM}`);
      expect((await db.query("SELECT current_setting('hnsw.iterative_scan') AS v", [])).rows[0]!.v).toBe('relaxed_order');
      expect((await db.query('SELECT version FROM schema_migrations ORDER BY version', [])).rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5]);
    });

    it('keeps the planner\'s statistics itself (PGlite runs no autovacuum): after the first search, and after writes of a tenth of the table', async () => {
      const db = (store as unknown as { db: { query(sql: string, p: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> } }).db;
      const counted = async () => {
        await store.statistics.settled();
        const { rows } = await db.query("SELECT reltuples::int AS estimated, (SELECT count(*)::int FROM memory_items) AS actual, EXISTS (SELECT 1 FROM pg_statistic WHERE starelid = 'memory_items'::regclass) AS analyzed FROM pg_class WHERE oid = 'memory_items'::regclass", []);
        return rows[0] as { estimated: number; actual: number; analyzed: boolean };
      };
      // The searches above analyzed the table they found without statistics (a delete or two since).
      const before = await counted();
      expect(before.analyzed).toBe(true);
      expect(Math.abs(before.estimated - before.actual)).toBeLessThan(5);
      // pg_class.reltuples moves only with ANALYZE (or VACUUM, which nothing runs here).
      for (let i = 0; i < 500; i++) await store.add('stats', { text: `filler ${i}`, embedding: random() });
      const after = await counted();
      expect(after.actual).toBe(before.actual + 500);
      expect(after.estimated).toBeGreaterThan(before.estimated + 450);
    }, 120_000);

    it('reports the engine; after a stop and reopen everything is still there', async () => {
      const engine = await store.engine();
      expect(engine).toMatchObject({ kind: mode, reachable: true, ...(mode === 'embedded' && { state: 'ready' }) });
      expect(engine.version).toMatch(/^\d+\.\d+/);
      if (mode === 'embedded') {
        expect(engine.pid).toBeGreaterThan(0);
        expect(engine.rss_bytes).toBeGreaterThan(10 * 1024 * 1024);
      }
      await store.close();
      store = open();
      expect((await store.stats('alpha')).items).toBe(199);
      const probe = items[42]!;
      expect((await store.search('alpha', { embedding: probe.embedding, text: probe.text, limit: 3 }))[0]!.id).toBe(probe.id);
    }, 120_000);

    if (mode === 'embedded') {
      it('SIGKILL of the database process under writes: restarted, every acknowledged write is there', async () => {
        const pid = (await store.engine()).pid!;
        const acknowledged: string[] = [];
        let failed = 0;
        const burst = (async () => {
          for (let i = 0; i < 400; i++) {
            await store.add('burst', { text: `burst ${i}`, embedding: random() }).then((r) => acknowledged.push(r.id), (e: unknown) => {
              failed += 1;
              expect((e as SvcError).code).toMatch(/^memory\.(engine_unreachable|unavailable)$/);
            });
          }
        })();
        await waitFor(() => acknowledged.length >= 20 || failed > 0, { what: '20 acknowledged writes', timeout: 60_000, interval: 10 });
        expect(failed).toBe(0);
        process.kill(pid, 'SIGKILL');
        await burst;
        expect(events.some((e) => e.to === 'crashed')).toBe(true);
        const after = await store.list('burst', { offset: 0, limit: 1000 });
        const held = new Set(after.map((r) => r.id));
        expect(acknowledged.filter((id) => !held.has(id))).toEqual([]);
        expect((await store.engine()).pid).not.toBe(pid);
        expect(acknowledged.length + failed).toBe(400);
      }, 120_000);

      it('stops the database process after idle_timeout_s unused; the next use starts it again', async () => {
        idleS = 1;
        // A use sets the idle timer with the new timeout (asking after the engine is none).
        await store.stats('alpha');
        const pid = (await store.engine()).pid!;
        await waitFor(() => events.at(-1), { what: 'the idle stop', until: (e) => e?.to === 'stopped' && /idle/.test(events.at(-2)?.reason ?? '') });
        expect(() => process.kill(pid, 0)).toThrow();
        idleS = 600;
        expect((await store.stats('alpha')).items).toBe(199);
        expect((await store.engine()).pid).not.toBe(pid);
      }, 60_000);

      it('a SIGKILLed gateway: its database process closes on its own, and every acknowledged write is there', async () => {
        await store.close();
        // A gateway of its own: the built store in a process that writes and prints each acknowledged id.
        const script = `
          const { openMemoryStore } = await import(${JSON.stringify(join(REPO_ROOT, 'dist/memory/open-store.js'))});
          const store = openMemoryStore({ stateRoot: ${JSON.stringify(home.stateRoot)}, pgvectorUrl: '', idleTimeoutS: () => 600, entry: ${JSON.stringify(ENTRY)} });
          await store.ensureBank('gw', ${DIM});
          console.log('pid ' + (await store.engine()).pid);
          for (let i = 0; ; i++) console.log('ack ' + (await store.add('gw', { text: 'gw ' + i, embedding: Array.from({ length: ${DIM} }, Math.random) })).id);`;
        const gateway = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        gateway.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
        await waitFor(() => (out.match(/^ack /gm) ?? []).length >= 20, { what: '20 acknowledged writes', timeout: 60_000 });
        gateway.kill('SIGKILL');
        await new Promise((resolve) => gateway.once('exit', resolve));
        const acknowledged = [...out.matchAll(/^ack (\S+)$/gm)].map((m) => m[1]!);
        const dbPid = Number(/^pid (\d+)$/m.exec(out)![1]);
        await waitFor(() => { try { process.kill(dbPid, 0); return false; } catch { return true; } }, { what: 'the orphaned database process to exit' });
        store = open();
        const held = new Set((await store.list('gw', { offset: 0, limit: 10_000 })).map((r) => r.id));
        expect(acknowledged.filter((id) => !held.has(id))).toEqual([]);
        expect((await store.stats('alpha')).items).toBe(199);
      }, 120_000);
    }
  });
}
