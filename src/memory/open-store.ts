// The store for the `pgvector` engine as [memory] configures it: the server at pgvector_url,
// or the embedded database process under <state>/memory/pg (started on first use).
import type { MemoryEngineEventData } from '../protocol/events.js';
import { embeddedDataDir } from './db/data-dir.js';
import { EmbeddedDatabase, ServerDatabase } from './db/engines.js';
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
