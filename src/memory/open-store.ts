// The store for the `pgvector` engine as [memory] configures it: the server at pgvector_url,
// or the embedded database process under <state>/memory/pg (started on first use).
import { join } from 'node:path';
import type { MemoryEngineEventData } from '../protocol/events.js';
import { EmbeddedDatabase, ServerDatabase } from './db/database.js';
import { PgSupervisor } from './db/supervisor.js';
import { SqlMemoryStore } from './store.js';

export interface OpenStoreOptions {
  /** <state>: the embedded database lives in <state>/memory/pg. */
  stateRoot: string;
  /** [memory].pgvector_url; "" = embedded. */
  pgvectorUrl: string;
  /** [memory].idle_timeout_s, read at each use. */
  idleTimeoutS: () => number;
  onEngineState?: (change: MemoryEngineEventData) => void;
  /** The pg-process entry; defaults to the one beside the compiled supervisor. */
  entry?: string;
}

export function embeddedDataDir(stateRoot: string): string {
  return join(stateRoot, 'memory', 'pg');
}

export function openMemoryStore(options: OpenStoreOptions): SqlMemoryStore {
  if (options.pgvectorUrl !== '') return new SqlMemoryStore(new ServerDatabase(options.pgvectorUrl));
  const supervisor = new PgSupervisor({
    dataDir: embeddedDataDir(options.stateRoot),
    entry: options.entry,
    idleTimeoutMs: () => options.idleTimeoutS() * 1000,
    onState: options.onEngineState,
  });
  return new SqlMemoryStore(new EmbeddedDatabase(supervisor));
}
