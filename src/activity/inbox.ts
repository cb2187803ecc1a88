// Activity rows from outside the gateway: what the CLI changes in the files by itself (`svc
// config edit|migrate`, `svc registry import`, `svc capabilities migrate`), with or without a
// gateway running. The gateway is the one writer of activity.db (issue 23): a second one could
// migrate, prune or lock it under a running gateway, of another version even. So the CLI
// leaves each row here as one small JSON file, written atomically, and the gateway folds the
// inbox into the log when it starts and before it answers GET /api/activity, so a reader never
// misses a row the CLI left. Nothing here opens the database: the CLI may import this module.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { ActivityInput } from './store.js';

/** One row as the CLI leaves it: `ts` is when the change was made, not when it was folded in. */
export interface InboxRow {
  action: string;
  target: string;
  actor: string;
  ts: string;
  details: Record<string, unknown>;
}

export const inboxDir = (stateRoot: string) => join(stateRoot, 'activity-inbox');

export async function leaveActivityRow(stateRoot: string, row: InboxRow): Promise<void> {
  // Named by time first, so the gateway folds rows in the order they were left.
  const name = `${Date.parse(row.ts).toString().padStart(14, '0')}-${process.pid}-${randomBytes(4).toString('hex')}.json`;
  await writeFileAtomic(join(inboxDir(stateRoot), name), `${JSON.stringify(row)}\n`, { durable: false });
}

/**
 * Record every row left in the inbox, then remove it. A row goes to whoever removes its file
 * first, so two folds at once (a start-up and a request) record it once; a file that is not
 * a row (cut short, or hand-made) is removed unrecorded, so it is not read again and again.
 */
export async function foldInbox(stateRoot: string, log: { record(entry: ActivityInput): unknown }): Promise<number> {
  const dir = inboxDir(stateRoot);
  const names = await readdir(dir).catch(() => [] as string[]);
  let folded = 0;
  // Atomic writes stage as dot files; only renamed, whole rows are read.
  for (const name of names.filter((n) => !n.startsWith('.') && n.endsWith('.json')).sort()) {
    const file = join(dir, name);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined || !(await unlink(file).then(() => true, () => false))) continue;
    const row = parseRow(text);
    if (!row) continue;
    log.record({ action: row.action, target: row.target, actor: row.actor, details: row.details, ts: new Date(row.ts) });
    folded += 1;
  }
  return folded;
}

function parseRow(text: string): InboxRow | undefined {
  try {
    const row = JSON.parse(text) as Partial<InboxRow>;
    const valid = typeof row.action === 'string' && typeof row.target === 'string' && typeof row.actor === 'string'
      && typeof row.ts === 'string' && !Number.isNaN(Date.parse(row.ts)) && typeof row.details === 'object' && row.details !== null;
    return valid ? (row as InboxRow) : undefined;
  } catch {
    return undefined;
  }
}
