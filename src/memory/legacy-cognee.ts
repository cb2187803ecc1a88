// `svc memory migrate` (bare form; docs/memory.md "Migrating from Cognee"):
// a dry-run over the legacy Cognee era's sidecar index, <cognee-dir>/hal0_memory_index.sqlite,
// table hal0_memory_items(id, text, timestamp, dataset, tags, source, metadata, cognee_data_id,
// cognee_dataset_id). It reads `id, dataset` only, opened read-only (the file is never
// changed, and a gateway is not needed), and counts which rows map onto svc's namespaces.
// The CLI runs it without a gateway: it imports only protocol and SQLite, never the memory
// layer's runtime, so the CLI may import this one file (CLI_MAY_IMPORT in eslint.config.js).
import Database from 'better-sqlite3';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_ID_PATTERN } from '../protocol/memory.js';

/** Where the legacy install kept Cognee's store. */
export const LEGACY_COGNEE_DIR = '/var/lib/hal0/memory/cognee';
export const LEGACY_INDEX_FILE = 'hal0_memory_index.sqlite';

export interface MigratePlan {
  rows_total: number;
  rows_mapped: number;
  rows_unmapped: number;
  /** Nothing to migrate: no index, or one without rows. */
  noop: boolean;
}

/**
 * The bank a legacy dataset maps to, or null: no dataset (or `shared`) is `shared`,
 * `private:<agent>` (a valid agent id) that agent's bank, `project:<id>` and `agents` their
 * namespaces. Any other dataset name was Cognee's own and has no namespace here.
 */
export function legacyDatasetBank(dataset: string | null): string | null {
  if (dataset === null || dataset === '' || dataset === 'shared') return 'shared';
  if (dataset === 'agents') return 'agents';
  const [kind, rest] = [dataset.slice(0, dataset.indexOf(':')), dataset.slice(dataset.indexOf(':') + 1)];
  if (kind === 'private' && AGENT_ID_PATTERN.test(rest)) return `private__${rest}`;
  if (kind === 'project' && /^[a-zA-Z0-9_-]{1,64}$/.test(rest)) return 'shared';
  return null;
}

/** The dry-run's counts; a directory without the index is a no-op, a file that is not that index an error. */
export async function planLegacyMigration(cogneeDir: string): Promise<MigratePlan & { index: string; found: boolean }> {
  const index = join(cogneeDir, LEGACY_INDEX_FILE);
  const found = await access(index).then(() => true, () => false);
  if (!found) return { index, found, rows_total: 0, rows_mapped: 0, rows_unmapped: 0, noop: true };
  const db = new Database(index, { readonly: true, fileMustExist: true });
  try {
    let mapped = 0;
    let total = 0;
    for (const row of db.prepare('SELECT id, dataset FROM hal0_memory_items').iterate() as IterableIterator<{ id: unknown; dataset: unknown }>) {
      total += 1;
      if (legacyDatasetBank(typeof row.dataset === 'string' ? row.dataset : null) !== null) mapped += 1;
    }
    return { index, found, rows_total: total, rows_mapped: mapped, rows_unmapped: total - mapped, noop: total === 0 };
  } finally {
    db.close();
  }
}
