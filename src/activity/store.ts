// The activity log: one SQLite table recording config-mutating actions and system state
// changes. It is a record, not a delivery channel: a failed write is reported on stderr
// and otherwise ignored, because no action should fail just because it was not logged.
//
// Bounds (docs/troubleshooting.md, "Bounded stores"): rows older than retention_days and the
// oldest beyond max_rows go every PRUNE_EVERY_INSERTS inserts and at open; the log's size is
// kept in memory (counted once at open), so each insert checks [activity].max_mb for free and
// one past it prunes the oldest until a tenth of the cap is free (lib/prune-oldest.ts). Each
// prune is reported (onPrune: a `store.pruned` event). One row is bounded too (row-size.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type Held, oldestBeyond } from '../lib/prune-oldest.js';
import type { PruneReason } from '../protocol/events.js';
import { maskUrlSecrets } from '../protocol/url-secrets.js';
import { migrate } from './migrations.js';
import { buildActivitySql, toActivityPage } from './query.js';
import { redactSecrets } from './redact.js';
import { detailsText, messageText, ROW_SIZE_SQL, rowSize } from './row-size.js';
import type { ActivityKind, ActivityOutcome, ActivityPage, ActivityQuery, StoredActivityRow } from './types.js';

export interface ActivityOptions {
  enabled: boolean;
  retentionDays: number;
  /** Row cap; null disables it. */
  maxRows: number | null;
  /** Size cap of all rows together, bytes as row-size.ts counts them. */
  maxBytes: number;
}

export interface ActivityPrune {
  reason: PruneReason;
  removed: number;
  /** What the log holds after it. */
  rows: number;
  bytes: number;
}

export interface ActivityInput {
  action: string;
  target?: string;
  actor?: string;
  kind?: ActivityKind;
  outcome?: ActivityOutcome;
  message?: string;
  details?: Record<string, unknown>;
  requestId?: string;
  ts?: Date;
}

// Pruning on every insert would cost a delete per write; every N inserts keeps the table
// near its bounds at a fraction of that.
const PRUNE_EVERY_INSERTS = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

export class ActivityLog {
  private readonly insertRow: Database.Statement;
  private readonly deleteOlderThan: Database.Statement;
  private readonly deleteBeyondNewest: Database.Statement;
  private readonly deleteOne: Database.Statement;
  private readonly oldestFirst: Database.Statement;
  private readonly held: Held = { rows: 0, bytes: 0 };
  // Listing SQL varies only with which filters are present, so the set of texts is small.
  private readonly listStatements = new Map<string, Database.Statement>();
  private insertsSincePrune = 0;

  private constructor(
    private readonly db: Database.Database,
    private options: ActivityOptions,
    private readonly onPrune: (prune: ActivityPrune) => void,
  ) {
    this.insertRow = db.prepare(
      `INSERT INTO activity (ts, kind, action, target, actor, outcome, message, details, request_id)
       VALUES (@ts, @kind, @action, @target, @actor, @outcome, @message, @details, @requestId)`,
    );
    // Each delete answers the sizes of the rows it removed, so the size kept in memory stays exact.
    this.deleteOlderThan = db.prepare(`DELETE FROM activity WHERE ts < ? RETURNING ${ROW_SIZE_SQL}`).pluck();
    this.deleteBeyondNewest = db.prepare(
      `DELETE FROM activity WHERE id IN (SELECT id FROM activity ORDER BY ts DESC, id DESC LIMIT -1 OFFSET ?) RETURNING ${ROW_SIZE_SQL}`,
    ).pluck();
    this.deleteOne = db.prepare(`DELETE FROM activity WHERE id = ? RETURNING ${ROW_SIZE_SQL}`).pluck();
    this.oldestFirst = db.prepare(`SELECT id, ${ROW_SIZE_SQL} AS bytes FROM activity ORDER BY ts, id`);
    const totals = db.prepare(`SELECT count(*) AS rows, coalesce(sum(${ROW_SIZE_SQL}), 0) AS bytes FROM activity`).get() as Held;
    this.held.rows = totals.rows;
    this.held.bytes = totals.bytes;
  }

  /**
   * Opens (creating if needed) the database at `dbPath` and brings its schema up to date.
   * Throws when the file cannot be opened or was written by a newer svc.
   */
  static open(dbPath: string, options: ActivityOptions, onPrune: (prune: ActivityPrune) => void = () => undefined): ActivityLog {
    mkdirSync(dirname(dbPath), { recursive: true });
    const db = new Database(dbPath);
    try {
      // WAL lets the dashboard read while the server writes; NORMAL is durable enough for
      // a log and avoids an fsync per row; busy_timeout rides out a concurrent CLI reader.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      migrate(db, dbPath);
      const log = new ActivityLog(db, { ...options }, onPrune);
      // The insert counter restarts with the process; pruning here bounds the table even
      // when no single run records enough rows to trigger it.
      log.pruneQuietly();
      return log;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Applies changed [activity] settings without reopening (settings reload). */
  setOptions(options: ActivityOptions): void {
    this.options = { ...options };
  }

  /** Records one entry and returns its id; undefined when disabled or when the write failed. Never throws. */
  record(entry: ActivityInput): number | undefined {
    if (!this.options.enabled) return undefined;
    let id: number;
    try {
      const params = toInsertParams(entry);
      id = Number(this.insertRow.run(params).lastInsertRowid);
      this.held.rows += 1;
      this.held.bytes += rowSize(params);
    } catch (error) {
      reportWriteFailure(error);
      return undefined;
    }
    this.insertsSincePrune += 1;
    if (this.insertsSincePrune >= PRUNE_EVERY_INSERTS || this.held.bytes > this.options.maxBytes) this.pruneQuietly();
    return id;
  }

  /** Rows and bytes held now. */
  size(): Held {
    return { ...this.held };
  }

  /**
   * Deletes rows older than retentionDays, the oldest beyond maxRows, and past maxBytes the
   * oldest until a tenth of it is free; returns how many went.
   */
  prune(now: Date = new Date()): number {
    this.insertsSincePrune = 0;
    const cutoff = new Date(now.getTime() - this.options.retentionDays * DAY_MS).toISOString();
    const { maxRows, maxBytes } = this.options;
    const freed = this.db.transaction(() => {
      const expired = this.deleteOlderThan.all(cutoff) as number[];
      const beyond = maxRows === null ? [] : (this.deleteBeyondNewest.all(maxRows) as number[]);
      const held = { rows: this.held.rows - expired.length - beyond.length, bytes: this.held.bytes - sum(expired) - sum(beyond) };
      // Read first, delete after: the connection cannot write while a statement iterates.
      const doomed = held.bytes > maxBytes
        ? oldestBeyond(this.oldestFirst.iterate() as Iterable<{ id: number; bytes: number }>, held, { maxRows: Number.MAX_SAFE_INTEGER, maxBytes })
        : [];
      return { expired, max_rows: beyond, max_bytes: doomed.map((id) => (this.deleteOne.get(id) as number | undefined) ?? 0) };
    })();
    let deleted = 0;
    for (const [reason, sizes] of Object.entries(freed) as Array<[PruneReason, number[]]>) {
      if (sizes.length === 0) continue;
      deleted += sizes.length;
      this.held.rows -= sizes.length;
      this.held.bytes -= sum(sizes);
      this.onPrune({ reason, removed: sizes.length, ...this.held });
    }
    return deleted;
  }

  /** One page of rows; `query` is expected to have come through parseActivityQuery. */
  query(query: ActivityQuery): ActivityPage {
    const { sql, params } = buildActivitySql(query);
    const rows = this.listStatement(sql).all(...params) as StoredActivityRow[];
    return toActivityPage(rows, query);
  }

  close(): void {
    this.db.close();
  }

  private listStatement(sql: string): Database.Statement {
    let statement = this.listStatements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.listStatements.set(sql, statement);
    }
    return statement;
  }

  private pruneQuietly(): void {
    try {
      this.prune();
    } catch (error) {
      reportWriteFailure(error);
    }
  }
}

function toInsertParams(entry: ActivityInput) {
  return {
    ts: (entry.ts ?? new Date()).toISOString(),
    kind: entry.kind ?? 'action',
    action: entry.action,
    target: entry.target ?? '',
    actor: entry.actor ?? 'system',
    outcome: entry.outcome ?? 'ok',
    message: messageText(maskUrlSecrets(entry.message ?? '')),
    details: detailsText(redactSecrets(entry.details ?? {}) as Record<string, unknown>),
    requestId: entry.requestId ?? null,
  };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

function reportWriteFailure(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc: activity log write failed: ${message}\n`);
}
