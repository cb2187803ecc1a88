// What both memory benches measure once a bank "bench" is loaded (bench/lib/memory.mjs item by
// item, bench/lib/memory-scale.mjs in bulk): hybrid search latency p50/p99, recall@10 of the
// HNSW index (the vector side alone, no text) against an exact scan (the uncast column has no
// index), and the database's RSS and size on disk.
import { performance } from 'node:perf_hooks';

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
export const round = (n, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function searchFigures(store, nextVector, queries) {
  const latencies = [];
  let hits = 0;
  for (let q = 0; q < queries; q++) {
    const embedding = nextVector();
    const start = performance.now();
    const found = await store.search('bench', { embedding, text: `word${q} topic${q % 37}`, limit: 10 });
    latencies.push(performance.now() - start);
    if (found.length === 0) throw new Error('a search found nothing');
    const approx = await store.search('bench', { embedding, text: '', limit: 10 });
    const exact = await store.db.query('SELECT id FROM memory_items WHERE bank = $1 ORDER BY embedding <=> $2::vector LIMIT 10', ['bench', `[${embedding.join(',')}]`]);
    const truth = new Set(exact.rows.map((r) => r.id));
    hits += approx.filter((r) => truth.has(r.id)).length;
  }
  latencies.sort((a, b) => a - b);
  const engine = await store.engine();
  return {
    search_p50_ms: round(percentile(latencies, 0.5)),
    search_p99_ms: round(percentile(latencies, 0.99)),
    recall_at_10: round(hits / (queries * 10), 3),
    db_rss_mb: engine.rss_bytes === null ? null : Math.round(engine.rss_bytes / 1024 / 1024),
    bytes_on_disk_mb: Math.round((await store.stats('bench')).bytes / 1024 / 1024),
  };
}
