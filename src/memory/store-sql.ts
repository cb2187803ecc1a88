// The store's larger SQL: the hybrid search (vector similarity on the HNSW index and
// Postgres full-text search, fused by reciprocal rank, every filter in SQL) and the per-
// dimension HNSW index. Values are bind parameters; the dimension is a checked integer.
import type { MemoryItemRow, MemorySearchQuery } from './types.js';

/** Reciprocal rank fusion's constant (Cormack et al.): a rank r scores 1 / (RRF_K + r). */
export const RRF_K = 60;
/** Each side of the fusion looks this many times deeper than the answer is long. */
const CANDIDATES_PER_RESULT = 4;

/**
 * A row the viewer may read: not private, or private and the viewer's own. $P is the private
 * tag and $O the viewer's own tag (both null: no viewer, every row).
 */
export const VISIBLE = '($P::text IS NULL OR NOT (tags @> ARRAY[$P::text]) OR tags @> ARRAY[$O::text])';

export const ITEM_COLUMNS = 'id, bank, text, dataset, tags, metadata, document_id, type, ts';

export interface ItemRecord {
  id: string; bank: string; text: string; dataset: string | null; tags: string[];
  metadata: Record<string, unknown>; document_id: string | null; type: string; ts: Date;
}

export function toRow(r: ItemRecord): MemoryItemRow {
  return { id: r.id, bank: r.bank, text: r.text, dataset: r.dataset, tags: r.tags, metadata: r.metadata, source: r.document_id, type: r.type, timestamp: r.ts.toISOString() };
}

/** pgvector's text form; a non-finite number would be refused by Postgres anyway, here with a clearer message. */
export function vectorLiteral(values: readonly number[]): string {
  for (const v of values) if (!Number.isFinite(v)) throw new TypeError('an embedding holds a non-finite number');
  return `[${values.join(',')}]`;
}

function dim(dimension: number): number {
  if (!Number.isInteger(dimension) || dimension < 1) throw new TypeError(`not a dimension: ${dimension}`);
  return dimension;
}

/** The HNSW index for one dimension: partial on `dim`, on the cast that queries of that dimension order by. */
export function hnswIndexSql(dimension: number): string {
  const d = dim(dimension);
  return `CREATE INDEX IF NOT EXISTS memory_items_hnsw_${d} ON memory_items USING hnsw ((embedding::vector(${d})) vector_cosine_ops) WHERE dim = ${d}`;
}

/**
 * Parameters: $1 bank, $2 query vector, $3 query text, $4 candidates, $5 limit, $6 dataset,
 * $7 tags (any), $8 tags (all), $9 before, $10 after, $11 excluded tags, $12 and $13 the
 * viewer's private and own tags. The vector side is
 * ordered by the same cast and has `dim = d`, so the planner can take the partial HNSW index.
 */
export function searchSql(bank: string, q: MemorySearchQuery): { sql: string; params: unknown[] } {
  const d = dim(q.embedding.length);
  const filters = `bank = $1 AND dim = ${d}
    AND ($6::text IS NULL OR dataset = $6)
    AND ($7::text[] IS NULL OR tags && $7)
    AND ($8::text[] IS NULL OR tags @> $8)
    AND ($9::timestamptz IS NULL OR ts < $9)
    AND ($10::timestamptz IS NULL OR ts > $10)
    AND ($11::text[] IS NULL OR NOT (tags && $11))
    AND ${VISIBLE.replace(/\$P/g, '$12').replace(/\$O/g, '$13')}`;
  const sql = `
    WITH vec AS (
      SELECT id, row_number() OVER (ORDER BY distance) AS r FROM (
        SELECT id, embedding::vector(${d}) <=> $2::vector(${d}) AS distance FROM memory_items
        WHERE ${filters}
        ORDER BY embedding::vector(${d}) <=> $2::vector(${d}) LIMIT $4
      ) nearest
    ), fts AS (
      SELECT id, row_number() OVER (ORDER BY rank DESC, id) AS r FROM (
        SELECT id, ts_rank_cd(tsv, query) AS rank FROM memory_items, plainto_tsquery('simple', $3) query
        WHERE tsv @@ query AND ${filters}
        ORDER BY rank DESC, id LIMIT $4
      ) matched
    ), fused AS (
      SELECT COALESCE(vec.id, fts.id) AS id,
        COALESCE(1.0 / (${RRF_K} + vec.r), 0) + COALESCE(1.0 / (${RRF_K} + fts.r), 0) AS score
      FROM vec FULL OUTER JOIN fts ON vec.id = fts.id
    )
    SELECT ${ITEM_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')}, fused.score
    FROM fused JOIN memory_items i ON i.id = fused.id
    ORDER BY fused.score DESC, i.id LIMIT $5`;
  const tags = q.tags && q.tags.length > 0 ? q.tags : null;
  const params = [
    bank, vectorLiteral(q.embedding), q.text, Math.max(q.limit * CANDIDATES_PER_RESULT, 40), q.limit, q.dataset ?? null,
    q.tagsMatch === 'all' ? null : tags, q.tagsMatch === 'all' ? tags : null, q.before ?? null, q.after ?? null,
    q.excludeTags && q.excludeTags.length > 0 ? q.excludeTags : null,
    q.viewer?.privateTag ?? null, q.viewer?.ownTag ?? null,
  ];
  return { sql, params };
}
