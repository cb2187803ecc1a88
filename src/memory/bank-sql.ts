// The SQL of bank administration (banks.ts, reembed.ts): a bank's fields, one item, documents
// (items grouped by document_id), tags with counts, export/import pages with embeddings, a
// delete by dataset, and the pages a re-embedding walks. Values are bind parameters, as in store.ts.
import { randomUUID } from 'node:crypto';
import type { Queryable } from './db/database.js';
import { ITEM_COLUMNS, toRow, vectorLiteral, VISIBLE, type ItemRecord } from './store-sql.js';
import type {
  MemoryBankAdmin, MemoryBankFields, MemoryBankRecord, MemoryDocumentRow, MemoryExportRow, MemoryImportConflict, MemoryItemRow, MemoryViewer,
} from './types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface BankRecord { id: string; dimension: number | null; items: string; created_at: Date; updated_at: Date; name: string | null; description: string | null; config: Record<string, unknown> }

export const BANK_SELECT = `SELECT b.id, b.dimension, (SELECT count(*) FROM memory_items i WHERE i.bank = b.id) AS items,
  b.created_at, b.updated_at, b.name, b.description, b.config FROM memory_banks b`;

export function toBank(r: BankRecord): MemoryBankRecord {
  return {
    id: r.id, dimension: r.dimension, items: Number(r.items), created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
    name: r.name, description: r.description, config: r.config,
  };
}

/** pgvector's text form back to numbers. */
const parseVector = (text: string): number[] => JSON.parse(text) as number[];

export class SqlBankAdmin implements MemoryBankAdmin {
  /**
   * `dimensionChanged` lets the store drop what it cached of the bank and make the HNSW index;
   * `wrote` counts rows written or deleted toward the next ANALYZE (db/statistics.ts).
   */
  constructor(
    private readonly db: Queryable,
    private readonly dimensionChanged: (bank: string, dimension: number) => Promise<void>,
    private readonly wrote: (rows: number) => void = () => undefined,
  ) {}

  async bank(bank: string): Promise<MemoryBankRecord | null> {
    const { rows } = await this.db.query<BankRecord>(`${BANK_SELECT} WHERE b.id = $1`, [bank]);
    return rows[0] ? toBank(rows[0]) : null;
  }

  async putBank(bank: string, dimension: number | null, fields: MemoryBankFields, mode: 'replace' | 'merge'): Promise<void> {
    const config = JSON.stringify(fields.config ?? {});
    if (mode === 'replace') {
      await this.db.query(
        `INSERT INTO memory_banks (id, dimension, name, description, config) VALUES ($1, $2, $3, $4, $5::jsonb)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, config = EXCLUDED.config,
           dimension = COALESCE(memory_banks.dimension, EXCLUDED.dimension), updated_at = now()`,
        [bank, dimension, fields.name ?? null, fields.description ?? null, config]);
      return;
    }
    await this.db.query(
      `UPDATE memory_banks SET name = CASE WHEN $2 THEN $3 ELSE name END, description = CASE WHEN $4 THEN $5 ELSE description END,
         config = config || $6::jsonb, dimension = COALESCE(dimension, $7), updated_at = now() WHERE id = $1`,
      [bank, fields.name !== undefined, fields.name ?? null, fields.description !== undefined, fields.description ?? null, config, dimension]);
  }

  async item(bank: string, id: string): Promise<MemoryItemRow | null> {
    if (!UUID.test(id)) return null;
    const { rows } = await this.db.query<ItemRecord>(`SELECT ${ITEM_COLUMNS} FROM memory_items WHERE bank = $1 AND id = $2`, [bank, id]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  async documents(bank: string, page: { offset: number; limit: number }): Promise<MemoryDocumentRow[]> {
    const { rows } = await this.db.query<{ document_id: string; items: string; first_at: Date; last_at: Date }>(
      `SELECT document_id, count(*) AS items, min(ts) AS first_at, max(ts) AS last_at FROM memory_items
       WHERE bank = $1 AND document_id IS NOT NULL GROUP BY document_id ORDER BY document_id OFFSET $2 LIMIT $3`, [bank, page.offset, page.limit]);
    return rows.map((r) => ({ document_id: r.document_id, items: Number(r.items), first_at: r.first_at.toISOString(), last_at: r.last_at.toISOString() }));
  }

  async document(bank: string, documentId: string): Promise<MemoryItemRow[]> {
    const { rows } = await this.db.query<ItemRecord>(`SELECT ${ITEM_COLUMNS} FROM memory_items WHERE bank = $1 AND document_id = $2 ORDER BY ts, id`, [bank, documentId]);
    return rows.map(toRow);
  }

  async deleteDocument(bank: string, documentId: string): Promise<number> {
    const deleted = (await this.db.query('DELETE FROM memory_items WHERE bank = $1 AND document_id = $2', [bank, documentId])).rowCount ?? 0;
    this.wrote(deleted);
    return deleted;
  }

  async tags(bank: string): Promise<Array<{ tag: string; count: number }>> {
    const { rows } = await this.db.query<{ tag: string; count: string }>(
      'SELECT tag, count(*) AS count FROM memory_items, unnest(tags) AS tag WHERE bank = $1 GROUP BY tag ORDER BY count(*) DESC, tag', [bank]);
    return rows.map((r) => ({ tag: r.tag, count: Number(r.count) }));
  }

  async exportPage(bank: string, after: string | null, limit: number): Promise<MemoryExportRow[]> {
    const { rows } = await this.db.query<ItemRecord & { embedding: string }>(
      `SELECT ${ITEM_COLUMNS}, embedding::text AS embedding FROM memory_items WHERE bank = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3`,
      [bank, after, limit]);
    return rows.map((r) => ({
      id: r.id, text: r.text, dataset: r.dataset, tags: r.tags, metadata: r.metadata, document_id: r.document_id, type: r.type,
      timestamp: r.ts.toISOString(), embedding: parseVector(r.embedding),
    }));
  }

  /** Counts and the newest item's time, for a unify plan (unify.ts). */
  async activity(bank: string): Promise<{ items: number; observations: number; last_at: string | null }> {
    const { rows } = await this.db.query<{ items: string; observations: string; last_at: Date | null }>(
      `SELECT count(*) AS items, count(*) FILTER (WHERE type = 'observation') AS observations, max(ts) AS last_at FROM memory_items WHERE bank = $1`, [bank]);
    const row = rows[0]!;
    return { items: Number(row.items), observations: Number(row.observations), last_at: row.last_at?.toISOString() ?? null };
  }

  /**
   * An id is unique in the database, not per bank: an id another bank holds (a bank exported
   * and imported into another on the same database) takes a new one; `onConflict` decides for
   * an id this bank holds already.
   */
  async importItem(bank: string, row: MemoryExportRow, onConflict: MemoryImportConflict): Promise<'added' | 'replaced' | 'skipped'> {
    const values = [bank, row.text, row.dataset, row.tags, JSON.stringify(row.metadata), row.document_id, row.type, row.timestamp, row.embedding.length, vectorLiteral(row.embedding)];
    const insert = async (id: string) => {
      await this.db.query(
        `INSERT INTO memory_items (id, bank, text, dataset, tags, metadata, document_id, type, ts, dim, embedding)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10, $11::vector)`, [id, ...values]);
      this.wrote(1);
    };
    const holder = UUID.test(row.id) ? (await this.db.query<{ bank: string }>('SELECT bank FROM memory_items WHERE id = $1', [row.id])).rows[0]?.bank : null;
    if (holder === undefined) {
      await insert(row.id);
      return 'added';
    }
    if (holder === bank && onConflict === 'skip') return 'skipped';
    if (holder === bank && onConflict === 'replace') {
      await this.db.query(
        `UPDATE memory_items SET text = $3, dataset = $4, tags = $5, metadata = $6, document_id = $7, type = $8, ts = $9::timestamptz, dim = $10, embedding = $11::vector
         WHERE bank = $2 AND id = $1`, [row.id, ...values]);
      this.wrote(1);
      return 'replaced';
    }
    await insert(randomUUID());
    return 'added';
  }

  async deleteInDataset(bank: string, dataset: string, ids: string[] | undefined, viewer?: MemoryViewer): Promise<number> {
    const valid = ids?.filter((id) => UUID.test(id)) ?? null;
    if (valid !== null && valid.length === 0) return 0;
    const result = await this.db.query(
      `DELETE FROM memory_items WHERE bank = $1 AND dataset = $2 AND ($3::uuid[] IS NULL OR id = ANY($3::uuid[]))
       AND ${VISIBLE.replace(/\$P/g, '$4').replace(/\$O/g, '$5')}`,
      [bank, dataset, valid, viewer?.privateTag ?? null, viewer?.ownTag ?? null]);
    this.wrote(result.rowCount ?? 0);
    return result.rowCount ?? 0;
  }

  async textPage(bank: string, after: string | null, limit: number): Promise<Array<{ id: string; text: string }>> {
    const { rows } = await this.db.query<{ id: string; text: string }>(
      'SELECT id, text FROM memory_items WHERE bank = $1 AND ($2::uuid IS NULL OR id > $2) ORDER BY id LIMIT $3', [bank, after, limit]);
    return rows;
  }

  async setEmbeddings(bank: string, rows: ReadonlyArray<{ id: string; embedding: number[] }>): Promise<void> {
    if (rows.length === 0) return;
    await this.db.query(
      `UPDATE memory_items m SET embedding = u.embedding::vector, dim = u.dim
       FROM unnest($2::uuid[], $3::text[], $4::int[]) AS u(id, embedding, dim) WHERE m.bank = $1 AND m.id = u.id`,
      [bank, rows.map((r) => r.id), rows.map((r) => vectorLiteral(r.embedding)), rows.map((r) => r.embedding.length)]);
    this.wrote(rows.length);
  }

  async setDimension(bank: string, dimension: number): Promise<void> {
    await this.db.query('UPDATE memory_banks SET dimension = $2, updated_at = now() WHERE id = $1', [bank, dimension]);
    await this.dimensionChanged(bank, dimension);
  }
}
