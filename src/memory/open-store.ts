// Opens the SQL store for the running config: the embedded database process under
// <state>/memory/pg, or the Postgres server of [memory].pgvector_url (src/memory/db/).
import type { SvcPaths } from '../config/paths.js';
import type { ResolvedConfig } from '../config/load.js';
import { SvcError } from '../protocol/errors.js';
import type { MemoryStore } from './store-contract.js';

export async function openStore(_paths: SvcPaths, _config: () => ResolvedConfig): Promise<MemoryStore> {
  throw new SvcError('memory.unavailable', 'the memory store is not built in yet');
}
