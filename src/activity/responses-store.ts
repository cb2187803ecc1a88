// Stored /v1/responses answers (store: true), so previous_response_id can continue a
// conversation and GET/DELETE /v1/responses/{id} work. They live in the activity database
// file, in tables of their own (responses-schema.ts).
//
// Bounds (docs/troubleshooting.md, "Bounded stores"): rows expire after
// [dispatcher].responses_ttl_s (reads never return an expired row; expired rows are deleted
// every PRUNE_EVERY writes and when the store opens), and the store holds at most
// [dispatcher].responses_max_rows rows and responses_max_mb MiB. The row count and the size
// are kept in memory, so a write checks them for free; one over a cap deletes the oldest rows
// until a tenth of that cap is free again, so the cost of pruning (better-sqlite3 is
// synchronous: it runs on the event loop) is one batch per tenth of the cap written, about
// what writing those rows cost. Each prune is reported (onPrune: a `store.pruned` event).
//
// A stored response keeps its whole conversation (the previous responses' items too), so
// deleting or pruning an earlier turn never breaks a later one; the caps bound what that costs.
import Database from 'better-sqlite3';
import type { PruneReason } from '../protocol/events.js';
import { type Held, oldestBeyond, overCaps } from '../lib/prune-oldest.js';
import { openResponseTables } from './responses-schema.js';

/** One stored response: the conversation that went in (history included) and the Response object. */
export interface StoredResponse {
  id: string;
  createdAt: number;
  expiresAt: number;
  /** Input items, oldest first: the previous response's conversation, then this turn's input. */
  input: Record<string, unknown>[];
  response: Record<string, unknown>;
}

export interface ResponseBounds {
  maxRows: number;
  maxBytes: number;
}

export interface ResponsePrune {
  reason: PruneReason;
  removed: number;
  /** What the store holds after it. */
  rows: number;
  bytes: number;
}

export interface ResponseStoreOptions {
  now?: () => number;
  /** Read at each write, so a settings change applies at the next one. */
  bounds?: () => ResponseBounds;
  onPrune?: (prune: ResponsePrune) => void;
}

/** The most a stored record (input and response, as UTF-8 JSON) may take; larger ones are not stored. */
export const STORED_RESPONSE_MAX_BYTES = 16 * 1024 * 1024;
const PRUNE_EVERY = 200;
const UNBOUNDED: ResponseBounds = { maxRows: Number.MAX_SAFE_INTEGER, maxBytes: Number.MAX_SAFE_INTEGER };

interface Row {
  id: string;
  created_at: number;
  expires_at: number;
  input: string;
  response: string;
}

type Items = ReadonlyArray<Record<string, unknown>>;

export class ResponseStore {
  private readonly insert: Database.Statement;
  private readonly insertRef: Database.Statement;
  private readonly select: Database.Statement;
  private readonly selectItem: Database.Statement;
  private readonly remove: Database.Statement;
  private readonly removeRefs: Database.Statement;
  private readonly expire: Database.Statement;
  private readonly expireRefs: Database.Statement;
  private readonly oldest: Database.Statement;
  private readonly totals: Database.Statement;
  private writes = 0;
  private rows = 0;
  private bytes = 0;

  private constructor(private readonly db: Database.Database, private readonly options: Required<ResponseStoreOptions>) {
    this.insert = db.prepare('INSERT INTO responses (id, created_at, expires_at, input, response, bytes) VALUES (?, ?, ?, ?, ?, ?)');
    this.insertRef = db.prepare('INSERT OR IGNORE INTO response_item_refs (id, response_id, source, position) VALUES (?, ?, ?, ?)');
    this.select = db.prepare('SELECT id, created_at, expires_at, input, response FROM responses WHERE id = ? AND expires_at > ?');
    // The response where the item first stood (the smallest that holds it), read out of its text.
    this.selectItem = db.prepare(`
      SELECT CASE r.source WHEN 'input' THEN json_extract(s.input, '$[' || r.position || ']')
                           ELSE json_extract(s.response, '$.output[' || r.position || ']') END AS item
      FROM response_item_refs r JOIN responses s ON s.id = r.response_id
      WHERE r.id = ? AND s.expires_at > ? ORDER BY s.created_at, s.id LIMIT 1`).pluck();
    this.remove = db.prepare('DELETE FROM responses WHERE id = ? AND expires_at > ? RETURNING bytes').pluck();
    this.removeRefs = db.prepare('DELETE FROM response_item_refs WHERE response_id = ?');
    this.expire = db.prepare('DELETE FROM responses WHERE expires_at <= ? RETURNING bytes').pluck();
    this.expireRefs = db.prepare('DELETE FROM response_item_refs WHERE response_id IN (SELECT id FROM responses WHERE expires_at <= ?)');
    this.oldest = db.prepare('SELECT id, bytes FROM responses INDEXED BY responses_age ORDER BY created_at, id');
    this.totals = db.prepare('SELECT count(*) AS rows, coalesce(sum(bytes), 0) AS bytes FROM responses INDEXED BY responses_age');
  }

  /** Opens the tables in the activity database at `dbPath` (which ActivityLog.open created). */
  static open(dbPath: string, options: ResponseStoreOptions = {}): ResponseStore {
    const db = new Database(dbPath);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      openResponseTables(db);
      const store = new ResponseStore(db, { now: Date.now, bounds: () => UNBOUNDED, onPrune: () => undefined, ...options });
      const totals = store.totals.get() as { rows: number; bytes: number };
      store.rows = totals.rows;
      store.bytes = totals.bytes;
      store.prune();
      store.enforceBounds();
      return store;
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Rows and bytes held now (expired rows not yet deleted included: they are on disk). */
  held(): Held {
    return { rows: this.rows, bytes: this.bytes };
  }

  /**
   * Keep a response for `ttlS` seconds. Returns false, storing nothing, when ttlS is 0 or the
   * record is over STORED_RESPONSE_MAX_BYTES or the whole store's size cap (the caller says so
   * in its answer). Storing it may prune the oldest rows.
   */
  put(id: string, input: Items, response: Record<string, unknown>, ttlS: number): boolean {
    if (ttlS <= 0) return false;
    const inputText = JSON.stringify(input);
    const responseText = JSON.stringify(response);
    const bytes = Buffer.byteLength(inputText) + Buffer.byteLength(responseText);
    if (bytes > Math.min(STORED_RESPONSE_MAX_BYTES, this.options.bounds().maxBytes)) return false;
    const now = this.options.now();
    this.db.transaction(() => {
      this.forget(id, 0); // an id stored again replaces the row (ids are random: practically never)
      this.insert.run(id, now, now + ttlS * 1000, inputText, responseText, bytes);
      // Where each item with an id stands, for item_reference inputs (a client that stores
      // refers to earlier items by id instead of sending them again).
      const output = (response.output ?? []) as Items;
      input.forEach((item, at) => typeof item.id === 'string' && this.insertRef.run(item.id, id, 'input', at));
      output.forEach((item, at) => typeof item.id === 'string' && this.insertRef.run(item.id, id, 'output', at));
    })();
    this.rows += 1;
    this.bytes += bytes;
    if (++this.writes % PRUNE_EVERY === 0) this.prune();
    this.enforceBounds(id);
    return true;
  }

  /** The stored response, or null when there is none or it expired. */
  get(id: string): StoredResponse | null {
    const row = this.select.get(id, this.options.now()) as Row | undefined;
    if (!row) return null;
    return { id: row.id, createdAt: row.created_at, expiresAt: row.expires_at, input: JSON.parse(row.input), response: JSON.parse(row.response) };
  }

  /** A live stored item (an input or output item of a stored response) by its id, or undefined. */
  item(id: string): Record<string, unknown> | undefined {
    const text = this.selectItem.get(id, this.options.now()) as string | null | undefined;
    return typeof text === 'string' ? JSON.parse(text) : undefined;
  }

  /** Whether a live response was deleted (the references to its items go with it). */
  delete(id: string): boolean {
    return this.db.transaction(() => this.forget(id, this.options.now()))();
  }

  /** Delete expired rows; returns how many responses went. */
  prune(): number {
    const now = this.options.now();
    const freed = this.db.transaction(() => {
      this.expireRefs.run(now);
      return this.expire.all(now) as number[];
    })();
    this.release(freed);
    if (freed.length > 0) this.report('expired', freed.length);
    return freed.length;
  }

  close(): void {
    this.db.close();
  }

  /** Removes the row `id` if it is live at `now` (0: in any case); whether it was there. */
  private forget(id: string, now: number): boolean {
    const freed = this.remove.all(id, now) as number[];
    if (freed.length === 0) return false;
    this.removeRefs.run(id);
    this.release(freed);
    return true;
  }

  private release(freed: readonly number[]): void {
    this.rows -= freed.length;
    this.bytes -= freed.reduce((sum, bytes) => sum + bytes, 0);
  }

  /** Over a cap: the oldest rows go, until a tenth of each cap is free. */
  private enforceBounds(spared?: string): void {
    const bounds = this.options.bounds();
    if (!overCaps(this.held(), bounds)) return;
    const reason: PruneReason = this.bytes > bounds.maxBytes ? 'max_bytes' : 'max_rows';
    // Read first, delete after: the connection cannot write while a statement iterates.
    const doomed = oldestBeyond(this.oldest.iterate() as Iterable<{ id: string; bytes: number }>, this.held(), bounds, spared);
    this.db.transaction(() => doomed.forEach((id) => this.forget(id, 0)))();
    if (doomed.length > 0) this.report(reason, doomed.length);
  }

  private report(reason: PruneReason, removed: number): void {
    this.options.onPrune({ reason, removed, rows: this.rows, bytes: this.bytes });
  }
}
