// The memory store at scale, and the gateway's memory around it (docs/memory.md, "Figures"):
//
// - measureMemoryBulk: N items (384-dim, bench/lib/vectors.mjs) written straight into the store
//   in batches (one INSERT of `batch` rows through unnest: the HTTP path embeds each text with
//   a model first, which at 100k items measures the model, not the store), then the HNSW index
//   built once (ingest = load + build); then hybrid search p50/p99 and recall@10 of
//   the index against an exact scan of the same data.
// - measureGatewayMemoryRss: a gateway with [memory] engine = "pgvector": its RSS idle, then
//   after requests that never touch memory (the control: any first requests grow a heap), then
//   after memory requests (the first starts the database process), and that process's RSS.
//   The database is its own process, so the gateway's share of memory should stay small.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { round, searchFigures } from './memory-search.mjs';
import { vectorSource } from './vectors.mjs';
import { REPO_ROOT, rssMb, startGateway } from './processes.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));


export async function measureMemoryBulk({ items = 100_000, dim = 384, queries = 100, batch = 500, vectors: kind = 'embedding-like', log = () => {} } = {}) {
  const nextVector = vectorSource(dim, kind);
  const { openMemoryStore } = await import(pathToFileURL(join(REPO_ROOT, 'dist/memory/open-store.js')).href);
  const state = mkdtempSync(join(tmpdir(), 'svc-bench-memory-bulk-'));
  const store = openMemoryStore({ stateRoot: state, pgvectorUrl: '', idleTimeoutS: () => 0 });
  try {
    await store.ensureBank('bench', dim);
    // A bulk load as Postgres advises: rows first, the HNSW index built once after (a row-by-row
    // index insert in PGlite's WebAssembly costs tens of ms a row on a loaded machine).
    await store.db.query(`DROP INDEX IF EXISTS memory_items_hnsw_${dim}`);
    const ingestStart = performance.now();
    for (let start = 0; start < items; start += batch) {
      const n = Math.min(batch, items - start);
      const texts = [];
      const vectors = [];
      for (let i = start; i < start + n; i++) {
        texts.push(`item ${i} word${i % 1000} topic${i % 37}`);
        vectors.push(`[${nextVector().join(',')}]`);
      }
      await store.db.query(
        `INSERT INTO memory_items (id, bank, text, dim, embedding)
         SELECT gen_random_uuid(), 'bench', t, $3, v::vector FROM unnest($1::text[], $2::text[]) AS u(t, v)`, [texts, vectors, dim]);
      store.statistics.wrote(n); // as the import route's writes do: an ANALYZE each tenth of the table
      if ((start / batch) % 20 === 0) log(`  ${start + n}/${items} in ${Math.round((performance.now() - ingestStart) / 1000)} s`);
    }
    const loadS = (performance.now() - ingestStart) / 1000;
    log(`  loaded in ${Math.round(loadS)} s; building the HNSW index`);
    await store.db.query("SET maintenance_work_mem = '1GB'");
    await store.db.query(`CREATE INDEX memory_items_hnsw_${dim} ON memory_items USING hnsw ((embedding::vector(${dim})) vector_cosine_ops) WHERE dim = ${dim}`);
    await store.statistics.settled();
    const ingestS = (performance.now() - ingestStart) / 1000;
    log(`  indexed after ${Math.round(ingestS)} s`);
    return {
      items, dim, queries, batch, vectors: kind,
      load_s: Math.round(loadS),
      index_build_s: Math.round(ingestS - loadS),
      ingest_s: Math.round(ingestS),
      ingest_per_s: Math.round(items / ingestS),
      ...(await searchFigures(store, nextVector, queries)),
    };
  } finally {
    await store.close();
    rmSync(state, { recursive: true, force: true });
  }
}

/** RSS in MB, the median of five reads 200 ms apart (one read catches a collection half done). */
async function steadyRssMb(pid) {
  const reads = [];
  for (let i = 0; i < 5; i++) {
    reads.push(rssMb(pid));
    await sleep(200);
  }
  return reads.sort((a, b) => a - b)[2];
}

export async function measureGatewayMemoryRss({ settleMs = 3000, warmRequests = 50 } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-memory-rss-'));
  mkdirSync(join(home, 'etc/svc'), { recursive: true });
  writeFileSync(join(home, 'etc/svc/svc.toml'), '[memory]\nengine = "pgvector"\nidle_timeout_s = 0\n');
  const gateway = await startGateway({ home, wrapper: '/bin/false' });
  const get = async (path) => {
    const answer = await fetch(`${gateway.url}${path}`);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}: ${await answer.text()}`);
    return answer.json();
  };
  try {
    await sleep(settleMs);
    const idle = await steadyRssMb(gateway.pid);
    // The control: the gateway's first requests of any kind grow its heap (code compiled, pools
    // and buffers made). Requests that never touch memory first, so what the first memory
    // request adds after them is memory's own.
    for (let i = 0; i < warmRequests; i++) await Promise.all([get('/api/status'), get('/api/slots'), get('/v1/models'), get('/api/activity?limit=20')]);
    await sleep(settleMs);
    const warmed = await steadyRssMb(gateway.pid);
    await get('/api/memory/banks');
    for (let i = 0; i < warmRequests; i++) await get('/api/memory/banks');
    await sleep(settleMs);
    const afterUse = await steadyRssMb(gateway.pid);
    const engine = await get('/api/memory/engine');
    return {
      gateway_idle_rss_mb: round(idle, 1),
      gateway_rss_after_other_requests_mb: round(warmed, 1),
      gateway_rss_after_memory_use_mb: round(afterUse, 1),
      memory_share_of_gateway_rss_mb: round(afterUse - warmed, 1),
      db_process_rss_mb: engine.rss_bytes === null ? null : Math.round(engine.rss_bytes / 1024 / 1024),
      db_pid_differs: engine.pid !== null && engine.pid !== gateway.pid,
    };
  } finally {
    gateway.child.kill('SIGTERM');
    await new Promise((resolve) => gateway.child.once('exit', resolve));
    rmSync(home, { recursive: true, force: true });
  }
}
