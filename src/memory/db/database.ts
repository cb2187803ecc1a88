// One way to run SQL for the memory store, whichever Postgres is underneath (engines.ts): the embedded
// process (a pool of one connection, made anew for each process the supervisor starts, since
// PGlite runs one query at a time anyway) or the server at [memory].pgvector_url (a pool of
// several). Migrations run on each new pool before its first query. A refused or dropped
// connection is memory.engine_unreachable; the password is never part of a message.
import pg from 'pg';
import { MemoryError } from '../../protocol/errors.js';
import type { MemoryEngineState } from '../../protocol/events.js';
import { runMigrations } from './migrations.js';
import { withCheckedOut } from './checkout.js';

export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>>;
}

export interface MemoryDatabase extends Queryable {
  readonly kind: 'embedded' | 'server';
  /** Runs fn on one connection inside BEGIN … COMMIT (ROLLBACK when it throws). */
  transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T>;
  /** Bumped for each new pool: caches of what the database holds (indexes made) start over. */
  readonly generation: number;
  pid(): number | null;
  rssBytes(): Promise<number | null>;
  /** The embedded process's state; null for a server. */
  state(): MemoryEngineState | null;
  /**
   * A query on a database that is open now, or null: the embedded process is neither started
   * nor kept awake by it (its idle timer is not reset); a server is simply queried.
   */
  peek<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R> | null>;
  close(): Promise<void>;
}

const SESSION_SETTINGS = 'SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 100';

const UNREACHABLE = /ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|Connection terminated|connection.*(closed|ended)|Client has encountered a connection error|timeout exceeded when trying to connect/i;

/** A pg failure as the catalogue's error: a connection fault is the engine's, anything else passes on. */
export function asMemoryError(error: unknown, where: string): unknown {
  if (error instanceof MemoryError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (UNREACHABLE.test(message) || (error as { code?: string }).code === '57P01') {
    return new MemoryError('memory.engine_unreachable', `the memory database (${where}) did not answer: ${message}`, { engine: where }, { cause: error });
  }
  return error;
}

/** A server URL with SVC_MEMORY_PG_PASSWORD as its password when it has none of its own. */
export function serverConfig(url: string, env: NodeJS.ProcessEnv = process.env): pg.PoolConfig {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : env.SVC_MEMORY_PG_PASSWORD;
  parsed.password = '';
  return { connectionString: parsed.toString(), ...(password ? { password } : {}) };
}

/** host:port/database of a URL, for messages: never its user's password. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
}

export abstract class PooledDatabase implements MemoryDatabase {
  abstract readonly kind: 'embedded' | 'server';
  generation = 0;
  protected abstract where(): string;
  /** An idle connection's end is news only while the database should be up. */
  protected dropExpected(): boolean {
    return false;
  }
  protected abstract pool(): Promise<pg.Pool>;
  abstract pid(): number | null;
  abstract rssBytes(): Promise<number | null>;
  abstract state(): MemoryEngineState | null;
  abstract close(): Promise<void>;

  /** A new pool: errors of idle clients are logged, never thrown (a dead database must not take the gateway down). */
  protected async openPool(config: pg.PoolConfig): Promise<pg.Pool> {
    // The session settings run on each new connection before the pool hands it out (its
    // onConnect hook is awaited). Sent from the pool's 'connect' event instead, they were
    // still queued when the pool gave the new client to a waiting pool.query (a connection
    // made after the idle one closed, or a second one of a server's pool): two queries
    // queued on one client, which pg deprecates with a DeprecationWarning on the gateway's
    // stderr. A filtered search (a dataset, tags) would otherwise get what survives of the
    // index's first ef_search candidates, often fewer than asked for: iterative scans
    // (pgvector 0.8) keep reading the index until the LIMIT is met; the search re-sorts by
    // distance itself.
    const onConnect = async (client: pg.ClientBase) => void (await client.query(SESSION_SETTINGS).catch(() => undefined));
    const pool = new pg.Pool({ ...config, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000, onConnect });
    pool.on('error', (error) => {
      if (!this.dropExpected()) process.stderr.write(`memory: idle database connection failed (${this.where()}): ${error.message}\n`);
    });
    try {
      await runMigrations(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw asMemoryError(error, this.where());
    }
    this.generation += 1;
    return pool;
  }

  async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    const pool = await this.pool();
    try {
      return await pool.query<R>(sql, params);
    } catch (error) {
      throw asMemoryError(error, this.where());
    }
  }

  abstract peek<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R> | null>;

  async transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    const pool = await this.pool();
    try {
      return await withCheckedOut(pool, async (client) => {
        await client.query('BEGIN');
        try {
          const result = await fn(client);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      throw asMemoryError(error, this.where());
    }
  }
}
