// The graph tables (migration 2, db/migrations.ts): an extraction written in one transaction,
// a failure recorded, the items a retry should queue, and the items that share entities with
// recall's hits. The subgraph queries are in subgraph.ts. Values are bind parameters.
import type { MemoryDatabase } from '../db/database.js';
import { ITEM_COLUMNS, type ItemRecord, toRow, VISIBLE } from '../store-sql.js';
import type { MemoryItemRow, MemoryViewer } from '../types.js';
import { entityKey, type Extraction } from './extraction.js';

export interface ExtractionJob { bank: string; id: string; text: string }

/**
 * The entities (upserted: mention_count and last_seen move on), the item's mentions and the
 * relations, and the item marked extracted, all or nothing. An item deleted meanwhile is
 * skipped: false.
 */
export async function writeExtraction(db: MemoryDatabase, job: ExtractionJob, extraction: Extraction, attempts: number): Promise<boolean> {
  return db.transaction(async (client) => {
    const present = await client.query('SELECT 1 FROM memory_items WHERE id = $1 AND bank = $2 FOR UPDATE', [job.id, job.bank]);
    if (present.rowCount === 0) return false;
    // A second extraction of the item (a retry) replaces the first.
    await client.query('DELETE FROM memory_relations WHERE item_id = $1', [job.id]);
    await client.query('DELETE FROM memory_entity_mentions WHERE item_id = $1', [job.id]);
    const ids = new Map<string, string>();
    for (const entity of extraction.entities) {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO memory_entities (bank, key, name, type, mention_count) VALUES ($1, $2, $3, $4, 1)
         ON CONFLICT (bank, key, type) DO UPDATE SET mention_count = memory_entities.mention_count + 1, last_seen = now()
         RETURNING id`, [job.bank, entityKey(entity.name), entity.name, entity.type]);
      ids.set(entityKey(entity.name), rows[0]!.id);
      await client.query('INSERT INTO memory_entity_mentions (entity_id, item_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [rows[0]!.id, job.id]);
    }
    for (const relation of extraction.relations) {
      const source = ids.get(entityKey(relation.source));
      const target = ids.get(entityKey(relation.target));
      if (!source || !target) continue;
      await client.query(
        `INSERT INTO memory_relations (bank, source_id, target_id, type, item_id) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [job.bank, source, target, relation.type, job.id]);
    }
    await markExtraction(client, job, 'ok', attempts, null);
    return true;
  });
}

type Runner = Pick<MemoryDatabase, 'query'>;

/** The item's row in memory_graph_extractions (a deleted item gets none: the insert finds no item). */
export async function markExtraction(db: Runner, job: Pick<ExtractionJob, 'bank' | 'id'>, status: 'ok' | 'failed', attempts: number, error: string | null): Promise<void> {
  await db.query(
    `INSERT INTO memory_graph_extractions (item_id, bank, status, attempts, error)
     SELECT id, bank, $2, $3, $4 FROM memory_items WHERE id = $1
     ON CONFLICT (item_id) DO UPDATE SET status = EXCLUDED.status, attempts = EXCLUDED.attempts, error = EXCLUDED.error, at = now()`,
    [job.id, status, attempts, error === null ? null : error.slice(0, 500)]);
}

/**
 * The item is queued: a pending row, written before its add is answered, so that a restart
 * finds it (pendingItems). A failed one queued again by a retry is pending again; a built one stays.
 */
export async function markPending(db: Runner, job: Pick<ExtractionJob, 'bank' | 'id'>): Promise<void> {
  await db.query(
    `INSERT INTO memory_graph_extractions (item_id, bank, status, attempts, error)
     SELECT id, bank, 'pending', 0, NULL FROM memory_items WHERE id = $1
     ON CONFLICT (item_id) DO UPDATE SET status = 'pending', error = NULL, at = now() WHERE memory_graph_extractions.status = 'failed'`, [job.id]);
}

/** Items queued and not built when the last gateway stopped, in the order they were added. */
export async function pendingItems(db: Runner, limit: number): Promise<ExtractionJob[]> {
  const { rows } = await db.query<ExtractionJob>(
    `SELECT i.bank, i.id, i.text FROM memory_graph_extractions x JOIN memory_items i ON i.id = x.item_id
     WHERE x.status = 'pending' ORDER BY i.ts, i.id LIMIT $1`, [limit]);
  return rows;
}

/** Items with no extraction yet, a failed or a pending one, oldest first, at most `limit`. */
export async function itemsToExtract(db: Runner, limit: number): Promise<ExtractionJob[]> {
  const { rows } = await db.query<ExtractionJob>(
    `SELECT i.bank, i.id, i.text FROM memory_items i LEFT JOIN memory_graph_extractions x ON x.item_id = i.id
     WHERE x.item_id IS NULL OR x.status IN ('failed', 'pending') ORDER BY i.ts, i.id LIMIT $1`, [limit]);
  return rows;
}

/**
 * Items of the same banks that share entities with `seeds`, most shared first, that the viewer
 * may read and that are not seeds themselves; at most `limit`.
 */
export async function relatedItems(db: Runner, seeds: readonly string[], viewer: MemoryViewer, limit: number): Promise<Array<MemoryItemRow & { shared: number }>> {
  if (seeds.length === 0) return [];
  const { rows } = await db.query<ItemRecord & { shared: string }>(
    `WITH related AS (
       SELECT other.item_id AS id, count(DISTINCT other.entity_id) AS shared
       FROM memory_entity_mentions seed
       JOIN memory_entity_mentions other ON other.entity_id = seed.entity_id AND other.item_id <> ALL($1::uuid[])
       WHERE seed.item_id = ANY($1::uuid[])
       GROUP BY other.item_id
     )
     SELECT ${ITEM_COLUMNS.split(', ').map((c) => `i.${c}`).join(', ')}, related.shared
     FROM related JOIN memory_items i ON i.id = related.id
     WHERE ${VISIBLE.replace(/\$P/g, '$2').replace(/\$O/g, '$3')}
     ORDER BY related.shared DESC, i.id LIMIT $4`,
    [seeds, viewer.privateTag, viewer.ownTag, limit]);
  return rows.map((r) => ({ ...toRow(r), shared: Number(r.shared) }));
}
