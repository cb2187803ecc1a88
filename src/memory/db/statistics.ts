// The planner's statistics of memory_items. PGlite runs no autovacuum, so the embedded store
// never has any unless it asks: without them the planner takes the table for a few hundred
// rows, filters by bank and sorts every vector, never using the HNSW index (measured on 100k
// items: search p50 743 ms, an exact scan, against tens of ms with the index). This does what
// autovacuum's analyze would: ANALYZE once a store opens with rows and no statistics, and again
// after writes of a tenth of the table (at least 500 rows), in the background, one at a time.
// On a Postgres server autovacuum runs too; the extra ANALYZE is cheap and harmless.
import type { MemoryDatabase } from './database.js';

const MIN_WRITES = 500;
const SCALE = 0.1;

export class TableStatistics {
  private writes = 0;
  /** The rows the last ANALYZE counted (pg_class.reltuples). */
  private rows = 0;
  private running: Promise<void> | null = null;
  private checkedGeneration = -1;

  constructor(private readonly db: MemoryDatabase) {}

  /** `n` rows were written or deleted: ANALYZE once they are a tenth of the table. */
  wrote(n: number): void {
    this.writes += n;
    if (this.writes >= Math.max(MIN_WRITES, this.rows * SCALE)) void this.analyze();
  }

  /** Called before a search: the first after the database (re)opened checks there are statistics. */
  opened(): void {
    if (this.checkedGeneration === this.db.generation) return;
    this.checkedGeneration = this.db.generation;
    this.running ??= this.analyzeIfNone().finally(() => (this.running = null));
  }

  /** ANALYZE now (one at a time); resolves when it is done. Failures are left to the next write. */
  analyze(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  /** Resolves when no ANALYZE is running. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async analyzeIfNone(): Promise<void> {
    const { rows } = await this.db
      .query<{ analyzed: boolean; has_rows: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_statistic WHERE starelid = 'memory_items'::regclass) AS analyzed,
                EXISTS (SELECT 1 FROM memory_items) AS has_rows`)
      .catch(() => ({ rows: [] as Array<{ analyzed: boolean; has_rows: boolean }> }));
    if (rows[0] && !rows[0].analyzed && rows[0].has_rows) await this.run();
  }

  private async run(): Promise<void> {
    this.writes = 0;
    try {
      await this.db.query('ANALYZE memory_items');
      const { rows } = await this.db.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE oid = 'memory_items'::regclass");
      this.rows = Math.max(0, Number(rows[0]?.reltuples ?? 0));
    } catch {
      // The database went away (idle stop, a crash): the next open checks again.
    }
  }
}
