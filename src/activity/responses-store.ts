// Stored /v1/responses answers (store: true), so previous_response_id can continue a
// conversation and GET/DELETE /v1/responses/{id} work. They live in the activity database
// file, in a table of their own that this store creates: the activity schema version is not
// bumped, so an older svc (a rollback) still opens the file and simply ignores the table.
// Rows expire after [dispatcher].responses_ttl_s; reads never return an expired row, and
// expired rows are deleted every PRUNE_EVERY writes and when the store opens.
import Database from 'better-sqlite3';

/** One stored response: the conversation that went in (history included) and the Response object. */
export interface StoredResponse {
  id: string;
  createdAt: number;
  expiresAt: number;
  /** Input items, oldest first: the previous response's conversation, then this turn's input. */
  input: Record<string, unknown>[];
  response: Record<string, unknown>;
}

/** The most a stored record (input and response, as JSON) may take; larger ones are not stored. */
export const STORED_RESPONSE_MAX_BYTES = 16 * 1024 * 1024;
const PRUNE_EVERY = 200;

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS responses (
    id TEXT PRIMARY KEY,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    input TEXT NOT NULL,
    response TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS responses_expires ON responses (expires_at);
  CREATE TABLE IF NOT EXISTS response_items (
    id TEXT PRIMARY KEY,
    response_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    item TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS response_items_response ON response_items (response_id);
  CREATE INDEX IF NOT EXISTS response_items_expires ON response_items (expires_at);
`;

interface Row {
  id: string;
  created_at: number;
  expires_at: number;
  input: string;
  response: string;
}

export class ResponseStore {
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly expire: Database.Statement;
  private readonly insertItem: Database.Statement;
  private readonly selectItem: Database.Statement;
  private readonly removeItems: Database.Statement;
  private readonly expireItems: Database.Statement;
  private writes = 0;

  private constructor(private readonly db: Database.Database, private readonly now: () => number) {
    this.insert = db.prepare('INSERT OR REPLACE INTO responses (id, created_at, expires_at, input, response) VALUES (?, ?, ?, ?, ?)');
    this.select = db.prepare('SELECT * FROM responses WHERE id = ? AND expires_at > ?');
    this.remove = db.prepare('DELETE FROM responses WHERE id = ? AND expires_at > ?');
    this.expire = db.prepare('DELETE FROM responses WHERE expires_at <= ?');
    this.insertItem = db.prepare('INSERT OR REPLACE INTO response_items (id, response_id, expires_at, item) VALUES (?, ?, ?, ?)');
    this.selectItem = db.prepare('SELECT item FROM response_items WHERE id = ? AND expires_at > ?');
    this.removeItems = db.prepare('DELETE FROM response_items WHERE response_id = ?');
    this.expireItems = db.prepare('DELETE FROM response_items WHERE expires_at <= ?');
  }

  /** Opens the table in the activity database at `dbPath` (which ActivityLog.open created). */
  static open(dbPath: string, now: () => number = Date.now): ResponseStore {
    const db = new Database(dbPath);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.exec(SCHEMA);
      const store = new ResponseStore(db, now);
      store.prune();
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /**
   * Keep a response for `ttlS` seconds. Returns false, storing nothing, when ttlS is 0 or the
   * record is over STORED_RESPONSE_MAX_BYTES (the caller says so in its answer).
   */
  put(id: string, input: readonly Record<string, unknown>[], response: Record<string, unknown>, ttlS: number): boolean {
    if (ttlS <= 0) return false;
    const inputText = JSON.stringify(input);
    const responseText = JSON.stringify(response);
    if (inputText.length + responseText.length > STORED_RESPONSE_MAX_BYTES) return false;
    const now = this.now();
    const expires = now + ttlS * 1000;
    // Each item also on its own, for item_reference inputs (a client that stores refers to
    // earlier output items by id instead of sending them again).
    const items = [...input, ...((response.output ?? []) as Record<string, unknown>[])].filter((item) => typeof item.id === 'string');
    this.db.transaction(() => {
      this.insert.run(id, now, expires, inputText, responseText);
      for (const item of items) this.insertItem.run(item.id, id, expires, JSON.stringify(item));
    })();
    if (++this.writes % PRUNE_EVERY === 0) this.prune();
    return true;
  }

  /** The stored response, or null when there is none or it expired. */
  get(id: string): StoredResponse | null {
    const row = this.select.get(id, this.now()) as Row | undefined;
    if (!row) return null;
    return { id: row.id, createdAt: row.created_at, expiresAt: row.expires_at, input: JSON.parse(row.input), response: JSON.parse(row.response) };
  }

  /** A live stored item (an input or output item of a stored response) by its id, or undefined. */
  item(id: string): Record<string, unknown> | undefined {
    const row = this.selectItem.get(id, this.now()) as { item: string } | undefined;
    return row ? JSON.parse(row.item) : undefined;
  }

  /** Whether a live response was deleted (its items go with it). */
  delete(id: string): boolean {
    return this.db.transaction(() => {
      this.removeItems.run(id);
      return this.remove.run(id, this.now()).changes > 0;
    })();
  }

  /** Delete expired rows; returns how many responses went. */
  prune(): number {
    const now = this.now();
    this.expireItems.run(now);
    return this.expire.run(now).changes;
  }

  close(): void {
    this.db.close();
  }
}
