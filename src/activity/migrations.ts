// Schema history of the activity database. PRAGMA user_version holds the number of the
// last migration applied, so opening a database only runs the steps it has not seen.
// Never edit a shipped migration: add a new one, or databases in the field drift apart.
import type Database from 'better-sqlite3';

export interface Migration {
  readonly version: number;
  readonly sql: string;
}

export const MIGRATIONS: ReadonlyArray<Migration> = [
  {
    version: 1,
    sql: `
      CREATE TABLE activity (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts TEXT NOT NULL,
        kind TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL DEFAULT '',
        actor TEXT NOT NULL,
        outcome TEXT NOT NULL,
        message TEXT NOT NULL DEFAULT '',
        details TEXT NOT NULL DEFAULT '{}',
        request_id TEXT
      );
      CREATE INDEX activity_ts ON activity (ts);
      CREATE INDEX activity_action ON activity (action);
      CREATE INDEX activity_target ON activity (target);
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

function schemaVersionOf(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Brings the database up to LATEST_SCHEMA_VERSION. Each step runs in its own transaction
 * together with the user_version bump, so a crash mid-way leaves a database that the next
 * open simply continues from. `label` names the database in error messages.
 */
export function migrate(db: Database.Database, label: string): void {
  const current = schemaVersionOf(db);
  if (current > LATEST_SCHEMA_VERSION) {
    throw new Error(
      `activity database ${label} has schema version ${current}, but this svc knows only up to ` +
        `${LATEST_SCHEMA_VERSION}: it was written by a newer svc; upgrade svc or move the file aside`,
    );
  }
  const pending = MIGRATIONS.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
  for (const migration of pending) {
    db.transaction(() => {
      db.exec(migration.sql);
      // PRAGMA cannot take a bound parameter; the version is our own integer, not input.
      db.pragma(`user_version = ${Math.trunc(migration.version)}`);
    })();
  }
}
