// The memory store on the embedded pgvector engine (docs/memory.md): ingest rate, hybrid
// search latency (p50/p99), recall@10 of the HNSW index against an exact scan of the same
// data, and the database process's resident memory. Runs the built store (dist/memory) with
// its database process under the supervisor, in a temporary state directory, 384-dim vectors
// of bench/lib/vectors.mjs (embedding-like by default; uniform is the index's worst case).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { vectorSource } from './vectors.mjs';
import { REPO_ROOT } from './processes.mjs';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;


export async function measureMemory({ items = 10_000, dim = 384, queries = 200, concurrency = 8, vectors: kind = 'embedding-like' } = {}) {
  const nextVector = vectorSource(dim, kind);
  const { openMemoryStore } = await import(pathToFileURL(join(REPO_ROOT, 'dist/memory/open-store.js')).href);
  const state = mkdtempSync(join(tmpdir(), 'svc-bench-memory-'));
  const store = openMemoryStore({ stateRoot: state, pgvectorUrl: '', idleTimeoutS: () => 0 });
  try {
    const openStart = performance.now();
    await store.ensureBank('bench', dim);
    const firstOpenMs = performance.now() - openStart;
    const vectors = [];
    let next = 0;
    const ingestStart = performance.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < items) {
        const i = next++;
        const embedding = nextVector();
        vectors[i] = embedding;
        await store.add('bench', { text: `item ${i} word${i % 1000} topic${i % 37}`, embedding });
      }
    }));
    const ingestS = (performance.now() - ingestStart) / 1000;

    const db = store.db;
    const latencies = [];
    let hits = 0;
    for (let q = 0; q < queries; q++) {
      const embedding = nextVector();
      const start = performance.now();
      const found = await store.search('bench', { embedding, text: `word${q} topic${q % 37}`, limit: 10 });
      latencies.push(performance.now() - start);
      // recall@10 of the index alone: the vector side (no text) beside an exact scan (no index on the uncast column).
      const approx = await store.search('bench', { embedding, text: '', limit: 10 });
      const exact = await db.query('SELECT id FROM memory_items WHERE bank = $1 ORDER BY embedding <=> $2::vector LIMIT 10', ['bench', `[${embedding.join(',')}]`]);
      const truth = new Set(exact.rows.map((r) => r.id));
      hits += approx.filter((r) => truth.has(r.id)).length;
      if (found.length === 0) throw new Error('a search found nothing');
    }
    latencies.sort((a, b) => a - b);
    const engine = await store.engine();
    return {
      items, dim, queries, vectors: kind,
      first_open_ms: Math.round(firstOpenMs),
      ingest_per_s: Math.round(items / ingestS),
      search_p50_ms: round(percentile(latencies, 0.5)),
      search_p99_ms: round(percentile(latencies, 0.99)),
      recall_at_10: round(hits / (queries * 10), 3),
      db_rss_mb: engine.rss_bytes === null ? null : Math.round(engine.rss_bytes / 1024 / 1024),
      bytes_on_disk_mb: Math.round((await store.stats('bench')).bytes / 1024 / 1024),
    };
  } finally {
    await store.close();
    rmSync(state, { recursive: true, force: true });
  }
}
