// The degraded Hindsight engine's outbox (migration 4, memory_outbox): writes acknowledged
// while the daemon is down, kept durably in svc's own store (the embedded database, or the
// [memory].pgvector_url server) in the order they came, replayed in that order. While they
// wait they are readable: list shows them, search and recall match their words.
import type { MemoryItem } from '../../protocol/memory.js';
import type { MemoryDatabase } from '../db/database.js';
import type { MemoryIdentity } from '../identity.js';
import { bankFull } from '../quota.js';
import { keep, type ItemFilter, type RetainItem } from './hindsight-items.js';

export interface OutboxRow { seq: number; bank: string; item: RetainItem }

/** How many waiting writes reads look at: the outbox is a queue, not a store. */
const READ_CAP = 10_000;

export class HindsightOutbox {
  /** `maxPerBank`: [memory].max_items_per_bank; a write past it is refused (memory.bank_full), as on svc's own store. */
  constructor(private readonly db: MemoryDatabase, private readonly maxPerBank = Number.MAX_SAFE_INTEGER) {}

  async push(bank: string, item: RetainItem): Promise<void> {
    const { rows } = await this.db.query<{ n: string }>("SELECT count(*) AS n FROM memory_outbox WHERE engine = 'hindsight' AND bank = $1", [bank]);
    const waiting = Number(rows[0]?.n ?? 0);
    if (waiting >= this.maxPerBank) throw bankFull(bank, waiting, 1, this.maxPerBank);
    await this.db.query('INSERT INTO memory_outbox (engine, bank, document_id, item) VALUES ($1, $2, $3, $4)', ['hindsight', bank, item.document_id, JSON.stringify(item)]);
  }

  /** The oldest waiting writes, first first. */
  async oldest(limit: number): Promise<OutboxRow[]> {
    const { rows } = await this.db.query<{ seq: string; bank: string; item: RetainItem }>(
      "SELECT seq, bank, item FROM memory_outbox WHERE engine = 'hindsight' ORDER BY seq LIMIT $1", [limit]);
    return rows.map((r) => ({ seq: Number(r.seq), bank: r.bank, item: r.item }));
  }

  async remove(seq: number): Promise<void> {
    await this.db.query('DELETE FROM memory_outbox WHERE seq = $1', [seq]);
  }

  async count(): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>("SELECT count(*) AS n FROM memory_outbox WHERE engine = 'hindsight'");
    return Number(rows[0]?.n ?? 0);
  }

  /** The waiting writes of `bank` as items `who` may see. */
  async items(bank: string, who: MemoryIdentity, filter: ItemFilter): Promise<MemoryItem[]> {
    const rows = (await this.oldest(READ_CAP)).filter((row) => row.bank === bank);
    return rows.map((row) => asItem(row)).filter((item) => keep(item, who, filter));
  }

  /** Removes waiting writes by document id, those `who` may see only. */
  async delete(bank: string, ids: readonly string[], who: MemoryIdentity): Promise<number> {
    const rows = (await this.oldest(READ_CAP)).filter((row) => row.bank === bank && ids.includes(row.item.document_id) && keep(asItem(row), who, {}));
    for (const row of rows) await this.remove(row.seq);
    return rows.length;
  }
}

function asItem(row: OutboxRow): MemoryItem {
  const { item } = row;
  return {
    id: item.document_id, text: item.content, timestamp: item.timestamp, dataset: item.context ?? null, tags: item.tags,
    source: 'outbox', metadata: item.metadata ?? {}, score: null, type: 'world', bank: row.bank,
  };
}

const words = (text: string) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0));

/** A plain word match over the waiting writes (no embeddings while degraded): the share of the query's words in the text. */
export function matchWords(items: readonly MemoryItem[], query: string): MemoryItem[] {
  const wanted = [...words(query)];
  if (wanted.length === 0) return [];
  return items
    .map((item) => {
      const have = words(item.text);
      return { ...item, score: wanted.filter((w) => have.has(w)).length / wanted.length };
    })
    .filter((item) => (item.score ?? 0) > 0)
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
}
