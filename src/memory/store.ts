// The memory store: banks of items with an embedding, on the embedded database or a Postgres
// server, the same SQL for both. Every value travels as a bind parameter (text is stored and
// returned verbatim); the only numbers written into SQL text are vector dimensions, checked
// integers, because an HNSW index and the cast that selects it need a literal dimension.
import { randomUUID } from 'node:crypto';
import { MemoryError } from '../protocol/errors.js';
import type { MemoryDatabase } from './db/database.js';
import { BANK_SELECT, SqlBankAdmin, toBank } from './bank-sql.js';
import { TableStatistics } from './db/statistics.js';
import { hnswIndexSql, ITEM_COLUMNS, searchSql, toRow, vectorLiteral, VISIBLE, type ItemRecord } from './store-sql.js';
import type { MemoryAddItem, MemoryBankRecord, MemoryEngineInfo, MemoryItemRow, MemorySearchQuery, MemoryStore, MemoryViewer } from './types.js';

export type { MemoryAddItem, MemoryEngineInfo, MemoryItemRow, MemorySearchQuery, MemoryStore } from './types.js';

export const MAX_DIMENSION = 16_000; // pgvector's limit for a vector column

function checkDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_DIMENSION) {
    throw new MemoryError('memory.dimension_mismatch', `a vector needs 1-${MAX_DIMENSION} dimensions, got ${dimension}`, { got: dimension });
  }
}

/** The bank's vectors and these differ: the embedding model changed since the bank was made (or a caller sent its own). */
export function dimensionMismatch(bank: string, held: number, got: number): MemoryError {
  return new MemoryError('memory.dimension_mismatch',
    `bank "${bank}" holds ${held}-dimensional vectors and the embedding model gives ${got}: \`svc memory reembed ${bank}\` re-embeds the bank with the current model`,
    { bank, bank_dimension: held, model_dimension: got, expected: held, got, fix: `svc memory reembed ${bank}` });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class SqlMemoryStore implements MemoryStore {
  /** Per database generation: the banks' dimensions known, and the HNSW indexes made. */
  private known = new Map<string, number>();
  private indexed = new Set<number>();
  private generation = -1;
  /** What engine() saw the last time the database was open: reported while it is stopped. */
  private lastSeen: { version: string | null; banks: number } | null = null;

  readonly admin: SqlBankAdmin;

  /** `db` is public for the graph tables (src/memory/graph/) and the hindsight engine's outbox (adapters/outbox.ts), which share this database. */
  /** Keeps the planner's statistics (the embedded database has no autovacuum). */
  readonly statistics: TableStatistics;

  constructor(readonly db: MemoryDatabase) {
    this.statistics = new TableStatistics(db);
    // A re-embedding changed the bank's dimension: what this store knew of it is stale.
    this.admin = new SqlBankAdmin(db, async (bank, dimension) => {
      this.known.delete(bank);
      await this.ensureBank(bank, dimension);
    }, (rows) => this.statistics.wrote(rows));
  }

  private fresh(): void {
    if (this.generation === this.db.generation) return;
    this.generation = this.db.generation;
    this.known.clear();
    this.indexed.clear();
  }

  async ensureBank(bank: string, dimension: number): Promise<void> {
    checkDimension(dimension);
    this.fresh();
    if (this.known.get(bank) === dimension) return;
    const { rows } = await this.db.query<{ dimension: number }>(
      `INSERT INTO memory_banks (id, dimension) VALUES ($1, $2)
       ON CONFLICT (id) DO UPDATE SET dimension = COALESCE(memory_banks.dimension, EXCLUDED.dimension)
       RETURNING dimension`, [bank, dimension]);
    const held = rows[0]!.dimension;
    if (held !== dimension) {
      throw dimensionMismatch(bank, held, dimension);
    }
    if (!this.indexed.has(dimension)) {
      await this.db.query(hnswIndexSql(dimension));
      this.indexed.add(dimension);
    }
    this.fresh();
    this.known.set(bank, dimension);
  }

  async banks(): Promise<MemoryBankRecord[]> {
    const { rows } = await this.db.query<Parameters<typeof toBank>[0]>(`${BANK_SELECT} ORDER BY b.id`);
    return rows.map(toBank);
  }

  async deleteBank(bank: string): Promise<number> {
    const removed = await this.db.transaction(async (client) => {
      const items = await client.query('DELETE FROM memory_items WHERE bank = $1', [bank]);
      await client.query('DELETE FROM memory_banks WHERE id = $1', [bank]);
      return items.rowCount ?? 0;
    });
    this.known.delete(bank);
    this.statistics.wrote(removed);
    return removed;
  }

  async add(bank: string, item: MemoryAddItem): Promise<{ id: string; timestamp: string }> {
    await this.ensureBank(bank, item.embedding.length);
    const id = randomUUID();
    const { rows } = await this.db.query<{ ts: Date }>(
      `INSERT INTO memory_items (id, bank, text, dataset, tags, metadata, document_id, type, ts, dim, embedding)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()), $10, $11::vector)
       RETURNING ts`,
      [id, bank, item.text, item.dataset ?? null, item.tags ?? [], JSON.stringify(item.metadata ?? {}), item.document_id ?? null,
        item.type ?? 'world', item.timestamp ?? null, item.embedding.length, vectorLiteral(item.embedding)]);
    this.statistics.wrote(1);
    return { id, timestamp: rows[0]!.ts.toISOString() };
  }

  async search(bank: string, q: MemorySearchQuery): Promise<MemoryItemRow[]> {
    checkDimension(q.embedding.length);
    this.fresh();
    const held = this.known.get(bank) ?? (await this.stats(bank)).dimension;
    if (held === null) return [];
    if (held !== q.embedding.length) {
      throw dimensionMismatch(bank, held, q.embedding.length);
    }
    this.statistics.opened();
    const { sql, params } = searchSql(bank, q);
    const { rows } = await this.db.query<ItemRecord & { score: number }>(sql, params);
    return rows.map((r) => ({ ...toRow(r), score: Number(r.score) }));
  }

  async list(bank: string, q: { dataset?: string; offset: number; limit: number; viewer?: MemoryViewer }): Promise<MemoryItemRow[]> {
    const { rows } = await this.db.query<ItemRecord>(
      `SELECT ${ITEM_COLUMNS} FROM memory_items WHERE bank = $1 AND ($2::text IS NULL OR dataset = $2)
       AND ${VISIBLE.replace(/\$P/g, '$5').replace(/\$O/g, '$6')}
       ORDER BY ts, id OFFSET $3 LIMIT $4`, [bank, q.dataset ?? null, q.offset, q.limit, q.viewer?.privateTag ?? null, q.viewer?.ownTag ?? null]);
    return rows.map(toRow);
  }

  async delete(bank: string, ids: string[], viewer?: MemoryViewer): Promise<number> {
    const valid = ids.filter((id) => UUID.test(id));
    if (valid.length === 0) return 0;
    const result = await this.db.query(
      `DELETE FROM memory_items WHERE bank = $1 AND id = ANY($2::uuid[]) AND ${VISIBLE.replace(/\$P/g, '$3').replace(/\$O/g, '$4')}`,
      [bank, valid, viewer?.privateTag ?? null, viewer?.ownTag ?? null]);
    this.statistics.wrote(result.rowCount ?? 0);
    return result.rowCount ?? 0;
  }

  async get(bank: string, ids: string[], viewer?: MemoryViewer): Promise<MemoryItemRow[]> {
    const valid = ids.filter((id) => UUID.test(id));
    if (valid.length === 0) return [];
    const { rows } = await this.db.query<ItemRecord>(
      `SELECT ${ITEM_COLUMNS} FROM memory_items WHERE bank = $1 AND id = ANY($2::uuid[]) AND ${VISIBLE.replace(/\$P/g, '$3').replace(/\$O/g, '$4')} ORDER BY ts, id`,
      [bank, valid, viewer?.privateTag ?? null, viewer?.ownTag ?? null]);
    return rows.map(toRow);
  }

  async retag(bank: string, ids: string[], change: { add: string[]; remove: string[] }, viewer?: MemoryViewer): Promise<number> {
    const valid = ids.filter((id) => UUID.test(id));
    if (valid.length === 0) return 0;
    // The new tags keep their first-seen order: the old ones less the removed, then the added.
    const result = await this.db.query(
      `UPDATE memory_items SET tags = ARRAY(
         SELECT t FROM (SELECT t, min(o) AS o FROM unnest(tags || $3::text[]) WITH ORDINALITY AS u(t, o) WHERE NOT (t = ANY($4::text[])) GROUP BY t) kept ORDER BY o)
       WHERE bank = $1 AND id = ANY($2::uuid[]) AND ${VISIBLE.replace(/\$P/g, '$5').replace(/\$O/g, '$6')}`,
      [bank, valid, change.add, change.remove, viewer?.privateTag ?? null, viewer?.ownTag ?? null]);
    return result.rowCount ?? 0;
  }

  async itemCount(bank: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>('SELECT count(*) AS n FROM memory_items WHERE bank = $1', [bank]);
    return Number(rows[0]?.n ?? 0);
  }

  async bankCount(bank: string): Promise<{ banks: number; known: boolean }> {
    const { rows } = await this.db.query<{ banks: string; known: boolean }>(
      'SELECT (SELECT count(*) FROM memory_banks) AS banks, EXISTS (SELECT 1 FROM memory_banks WHERE id = $1) AS known', [bank]);
    return { banks: Number(rows[0]?.banks ?? 0), known: rows[0]?.known === true };
  }

  async stats(bank: string): Promise<{ items: number; dimension: number | null; bytes: number }> {
    const { rows } = await this.db.query<{ dimension: number | null; items: string; bytes: string | null }>(
      `SELECT b.dimension, count(i.id) AS items, sum(pg_column_size(i.*)) AS bytes
       FROM memory_banks b LEFT JOIN memory_items i ON i.bank = b.id WHERE b.id = $1 GROUP BY b.dimension`, [bank]);
    const row = rows[0];
    return { items: Number(row?.items ?? 0), dimension: row?.dimension ?? null, bytes: Number(row?.bytes ?? 0) };
  }

  /**
   * The engine's report. The embedded database is asked only while it runs, and without
   * resetting its idle timer (a dashboard polling this must not keep ~320 MB awake); otherwise
   * the version and the bank count are those seen the last time it was open.
   */
  async engine(): Promise<MemoryEngineInfo> {
    const state = this.db.state() ?? undefined;
    const live = await this.db.peek<{ version: string | null; banks: string }>(
      "SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS version, (SELECT count(*) FROM memory_banks) AS banks");
    if (live) this.lastSeen = { version: live.rows[0]?.version ?? null, banks: Number(live.rows[0]?.banks ?? 0) };
    return {
      kind: this.db.kind, reachable: live !== null, version: this.lastSeen?.version ?? null, pid: this.db.pid(), rss_bytes: await this.db.rssBytes(),
      banks_total: this.lastSeen?.banks ?? null, ...(state && { state }),
    };
  }

  rssBytes(): Promise<number | null> {
    return this.db.rssBytes();
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
