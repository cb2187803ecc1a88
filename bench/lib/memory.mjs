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
import { searchFigures } from './memory-search.mjs';
import { vectorSource } from './vectors.mjs';
import { REPO_ROOT } from './processes.mjs';



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
    return {
      items, dim, queries, vectors: kind,
      first_open_ms: Math.round(firstOpenMs),
      ingest_per_s: Math.round(items / ingestS),
      ...(await searchFigures(store, nextVector, queries)),
    };
  } finally {
    await store.close();
    rmSync(state, { recursive: true, force: true });
  }
}
