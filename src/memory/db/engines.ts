// The two databases under the memory store: the embedded process (a pool of one connection,
// made anew for each process the supervisor starts, since PGlite runs one query at a time
// anyway) and a Postgres server at [memory].pgvector_url (a pool of several).
import type pg from 'pg';
import type { MemoryEngineState } from '../../protocol/events.js';
import { PooledDatabase, type Queryable, redactedUrl, serverConfig } from './database.js';
import type { PgSupervisor } from './supervisor.js';

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

  protected override dropExpected(): boolean {
    return this.supervisor.state === 'stopping' || this.supervisor.state === 'stopped';
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

  /** Each query and transaction is a use of the process while it runs (PgSupervisor.using). */
  override query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    return this.supervisor.using(() => super.query<R>(sql, params));
  }

  override transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    return this.supervisor.using(() => super.transaction(fn));
  }

  /** Only on the pool of the process running now: no start, and the idle timer left alone (GET /api/memory/engine). */
  async peek<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R> | null> {
    const current = this.current;
    if (this.supervisor.state !== 'ready' || !current || current.generation !== this.supervisor.generation) return null;
    const pool = await current.pool.catch(() => null);
    return pool ? pool.query<R>(sql, params).catch(() => null) : null;
  }

  pid(): number | null {
    return this.supervisor.pid;
  }

  rssBytes(): Promise<number | null> {
    return this.supervisor.rssBytes();
  }

  state(): MemoryEngineState {
    return this.supervisor.state;
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

  async peek<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R> | null> {
    return this.query<R>(sql, params).catch(() => null);
  }

  pid(): number | null {
    return null;
  }

  rssBytes(): Promise<number | null> {
    return Promise.resolve(null);
  }

  state(): null {
    return null;
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = null;
    await opened?.then((p) => p.end()).catch(() => undefined);
  }
}
