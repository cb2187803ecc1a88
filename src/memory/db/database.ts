// One way to run SQL for the memory store, whichever Postgres is underneath: the embedded
// process (a pool of one connection, made anew for each process the supervisor starts, since
// PGlite runs one query at a time anyway) or the server at [memory].pgvector_url (a pool of
// several). Migrations run on each new pool before its first query. A refused or dropped
// connection is memory.engine_unreachable; the password is never part of a message.
import pg from 'pg';
import { MemoryError } from '../../protocol/errors.js';
import { runMigrations } from './migrations.js';
import type { PgSupervisor } from './supervisor.js';

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

abstract class PooledDatabase implements MemoryDatabase {
  abstract readonly kind: 'embedded' | 'server';
  generation = 0;
  protected abstract where(): string;
  protected abstract pool(): Promise<pg.Pool>;
  abstract pid(): number | null;
  abstract rssBytes(): Promise<number | null>;
  abstract close(): Promise<void>;

  /** A new pool: errors of idle clients are logged, never thrown (a dead database must not take the gateway down). */
  protected async openPool(config: pg.PoolConfig): Promise<pg.Pool> {
    const pool = new pg.Pool({ ...config, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
    pool.on('error', (error) => process.stderr.write(`memory: idle database connection failed (${this.where()}): ${error.message}\n`));
    // A filtered search (a dataset, tags) would otherwise get what survives of the index's
    // first ef_search candidates, often fewer than asked for: iterative scans (pgvector 0.8)
    // keep reading the index until the LIMIT is met; the search re-sorts by distance itself.
    pool.on('connect', (client) => void client.query(SESSION_SETTINGS).catch(() => undefined));
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

  async transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    const pool = await this.pool();
    const client = await pool.connect().catch((error: unknown) => Promise.reject(asMemoryError(error, this.where())));
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw asMemoryError(error, this.where());
    } finally {
      client.release();
    }
  }
}

/** The embedded process: started on first query through the supervisor, one pool per process. */
export class EmbeddedDatabase extends PooledDatabase {
  readonly kind = 'embedded' as const;
  private current: { port: number; generation: number; pool: Promise<pg.Pool> } | null = null;

  constructor(readonly supervisor: PgSupervisor) {
    super();
  }

  protected where(): string {
    return `embedded, 127.0.0.1:${this.supervisor.port ?? '-'}`;
  }

  protected async pool(): Promise<pg.Pool> {
    const port = await this.supervisor.acquire();
    const generation = this.supervisor.generation;
    if (this.current?.port !== port || this.current.generation !== generation) {
      const stale = this.current;
      const pool = this.openPool({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1 });
      this.current = { port, generation, pool };
      void stale?.pool.then((p) => p.end()).catch(() => undefined);
      pool.catch(() => (this.current = this.current?.pool === pool ? null : this.current));
    }
    return this.current.pool;
  }

  pid(): number | null {
    return this.supervisor.pid;
  }

  rssBytes(): Promise<number | null> {
    return this.supervisor.rssBytes();
  }

  async close(): Promise<void> {
    const current = this.current;
    this.current = null;
    await current?.pool.then((p) => p.end()).catch(() => undefined);
    await this.supervisor.stop('gateway shutdown');
  }
}

/** A Postgres server with pgvector at [memory].pgvector_url. */
export class ServerDatabase extends PooledDatabase {
  readonly kind = 'server' as const;
  private opened: Promise<pg.Pool> | null = null;

  constructor(private readonly url: string, private readonly max = 8) {
    super();
  }

  protected where(): string {
    return redactedUrl(this.url);
  }

  protected pool(): Promise<pg.Pool> {
    this.opened ??= this.openPool({ ...serverConfig(this.url), max: this.max });
    this.opened.catch(() => (this.opened = null));
    return this.opened;
  }

  pid(): number | null {
    return null;
  }

  rssBytes(): Promise<number | null> {
    return Promise.resolve(null);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = null;
    await opened?.then((p) => p.end()).catch(() => undefined);
  }
}
