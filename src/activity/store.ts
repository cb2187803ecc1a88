// The activity log: one SQLite table recording config-mutating actions and system state
// changes. It is a record, not a delivery channel: a failed write is reported on stderr
// and otherwise ignored, because no action should fail just because it was not logged.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { maskUrlSecrets } from '../protocol/url-secrets.js';
import { migrate } from './migrations.js';
import { buildActivitySql, toActivityPage } from './query.js';
import { redactSecrets } from './redact.js';
import type { ActivityKind, ActivityOutcome, ActivityPage, ActivityQuery, StoredActivityRow } from './types.js';

export interface ActivityOptions {
  enabled: boolean;
  retentionDays: number;
  /** Row cap; null disables it. */
  maxRows: number | null;
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
  // Listing SQL varies only with which filters are present, so the set of texts is small.
  private readonly listStatements = new Map<string, Database.Statement>();
  private insertsSincePrune = 0;

  private constructor(
    private readonly db: Database.Database,
    private options: ActivityOptions,
  ) {
    this.insertRow = db.prepare(
      `INSERT INTO activity (ts, kind, action, target, actor, outcome, message, details, request_id)
       VALUES (@ts, @kind, @action, @target, @actor, @outcome, @message, @details, @requestId)`,
    );
    this.deleteOlderThan = db.prepare('DELETE FROM activity WHERE ts < ?');
    this.deleteBeyondNewest = db.prepare(
      'DELETE FROM activity WHERE id IN (SELECT id FROM activity ORDER BY ts DESC, id DESC LIMIT -1 OFFSET ?)',
    );
  }

  /**
   * Opens (creating if needed) the database at `dbPath` and brings its schema up to date.
   * Throws when the file cannot be opened or was written by a newer svc.
   */
  static open(dbPath: string, options: ActivityOptions): ActivityLog {
    mkdirSync(dirname(dbPath), { recursive: true });
    const db = new Database(dbPath);
    try {
      // WAL lets the dashboard read while the server writes; NORMAL is durable enough for
      // a log and avoids an fsync per row; busy_timeout rides out a concurrent CLI reader.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      migrate(db, dbPath);
      const log = new ActivityLog(db, { ...options });
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
      id = Number(this.insertRow.run(toInsertParams(entry)).lastInsertRowid);
    } catch (error) {
      reportWriteFailure(error);
      return undefined;
    }
    this.insertsSincePrune += 1;
    if (this.insertsSincePrune >= PRUNE_EVERY_INSERTS) this.pruneQuietly();
    return id;
  }

  /** Deletes rows older than retentionDays and the oldest beyond maxRows; returns how many went. */
  prune(now: Date = new Date()): number {
    this.insertsSincePrune = 0;
    const cutoff = new Date(now.getTime() - this.options.retentionDays * DAY_MS).toISOString();
    const { maxRows } = this.options;
    return this.db.transaction(() => {
      let deleted = this.deleteOlderThan.run(cutoff).changes;
      if (maxRows !== null) deleted += this.deleteBeyondNewest.run(maxRows).changes;
      return deleted;
    })();
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
    message: maskUrlSecrets(entry.message ?? ''),
    details: JSON.stringify(redactSecrets(entry.details ?? {})),
    requestId: entry.requestId ?? null,
  };
}

function reportWriteFailure(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc: activity log write failed: ${message}\n`);
}
