// The embedded database's memory settings (pg-process.ts passes them to PGlite as startup
// options; docs/memory.md, "Resident memory").
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Postgres's memory settings, sized for a memory store rather than for a server:
 * WebAssembly memory only grows, so what Postgres allocates once stays resident until the
 * process ends (the idle stop ends it). shared_buffers is allocated whole at start (PGlite's
 * default, 128 MB, was most of the ~440 MB the process held with a small bank): it follows
 * the store's tables and indexes on disk instead (sharedBuffersMb), so a small store holds
 * little and a large one keeps its searches in memory; a page not in it is read from the
 * data directory, which the OS caches. maintenance_work_mem caps an HNSW index built over
 * rows already there (a re-embedding's): past it pgvector goes on building, more slowly,
 * instead of taking more. wal_buffers follows shared_buffers (1/32).
 */
export const MEMORY_SETTINGS = ['maintenance_work_mem=32MB', 'temp_buffers=1MB'] as const;
export const SHARED_BUFFERS_MB = { min: 16, max: 128 } as const;

/** shared_buffers for a store whose tables and indexes take `bytes` on disk: all of them and a quarter more, within SHARED_BUFFERS_MB. */
export function sharedBuffersMb(bytes: number): number {
  return Math.min(SHARED_BUFFERS_MB.max, Math.max(SHARED_BUFFERS_MB.min, Math.ceil((bytes * 1.25) / 1024 / 1024)));
}

/**
 * What the store's tables and indexes take on disk: the largest database under <data>/base
 * (the store lives in `postgres`; template0 and template1 hold a few MB each); 0 before initdb.
 */
export async function storeBytes(data: string): Promise<number> {
  const databases = await readdir(join(data, 'base'), { withFileTypes: true }).catch(() => []);
  let largest = 0;
  for (const database of databases.filter((entry) => entry.isDirectory())) {
    const dir = join(data, 'base', database.name);
    const files = await readdir(dir).catch(() => []);
    let bytes = 0;
    for (const file of files) bytes += (await stat(join(dir, file)).catch(() => ({ size: 0 }))).size;
    largest = Math.max(largest, bytes);
  }
  return largest;
}
