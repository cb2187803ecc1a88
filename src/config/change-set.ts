// Several configuration files changed as one: all of them or none, even if the process is
// killed half-way (a stack apply rewrites many slot files). Each file is still replaced
// atomically (atomic.ts); the set is made whole by a journal:
//
//   1. the journal (every file's old bytes, or its absence) is written and synced before
//      the first file changes;
//   2. the files are written one by one;
//   3. the caller checks the result (the whole configuration loads) and the journal is
//      removed: that removal is the commit point. A failed check puts the old bytes back.
//
// On start, before the configuration is read, a journal left behind means a change set was
// cut off before its commit point: every file it names gets its old bytes back (roll back),
// then the journal goes. So the files on disk are always the old set or the new one, whole.
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { writeFileAtomic } from './atomic.js';
import type { SvcPaths } from './paths.js';

export interface FileChange {
  /** Absolute path inside the config root or the state root. */
  path: string;
  /** The new content; null removes the file. */
  after: string | null;
}

interface JournalEntry {
  path: string;
  /** The old content, base64; null: the file did not exist. */
  before: string | null;
}

interface Journal {
  kind: 'svc.change-set';
  label: string;
  started_at: string;
  files: JournalEntry[];
}

export const journalPathOf = (paths: Pick<SvcPaths, 'stateRoot'>) => join(paths.stateRoot, 'change-set.journal.json');

/** TEST HOOK (test/stack-apply-crash.test.ts): pause after this many files are written; see pauseForTests. */
export const PAUSE_AFTER_FILES_ENV = 'SVC_TEST_CHANGESET_PAUSE_AFTER';

/**
 * Write `changes` as one transaction. `verify` runs after every file is written (inside
 * the caller's writer queue); when it throws, every file is put back and the error rethrown.
 * The caller holds the one-writer queue for configuration files.
 */
export async function commitChangeSet<T>(paths: Pick<SvcPaths, 'stateRoot' | 'configRoot'>, label: string, changes: readonly FileChange[], verify: () => Promise<T>): Promise<T> {
  for (const change of changes) guardPath(paths, change.path);
  const files: JournalEntry[] = [];
  for (const change of changes) {
    const before = await readFile(change.path).then((b) => b.toString('base64'), (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    files.push({ path: change.path, before });
  }
  const journal: Journal = { kind: 'svc.change-set', label, started_at: new Date().toISOString(), files };
  const journalPath = journalPathOf(paths);
  await writeFileAtomic(journalPath, JSON.stringify(journal), { mode: 0o600 });
  let result: T;
  try {
    let written = 0;
    for (const change of changes) {
      if (change.after === null) await rm(change.path, { force: true });
      else await writeFileAtomic(change.path, change.after);
      await pauseForTests(journalPath, ++written);
    }
    result = await verify();
  } catch (error) {
    await rollBack(journal);
    await rm(journalPath, { force: true });
    throw error;
  }
  await rm(journalPath, { force: true });
  return result;
}

/** Roll back a change set a killed process left; returns its label and files, or null when there was none. */
export async function recoverChangeSet(paths: Pick<SvcPaths, 'stateRoot' | 'configRoot'>): Promise<{ label: string; files: string[] } | null> {
  const journalPath = journalPathOf(paths);
  let text: string;
  try {
    text = await readFile(journalPath, 'utf8');
  } catch {
    return null;
  }
  let journal: Journal;
  try {
    journal = JSON.parse(text) as Journal;
    if (journal.kind !== 'svc.change-set' || !Array.isArray(journal.files)) throw new Error('not a change-set journal');
    for (const entry of journal.files) guardPath(paths, entry.path);
  } catch (error) {
    // The journal itself is written atomically, so a bad one was not written by svc: keep it for a human.
    throw new Error(`${journalPath} cannot be read (${(error as Error).message}); move it away to start`, { cause: error });
  }
  await rollBack(journal);
  await rm(journalPath, { force: true });
  return { label: journal.label, files: journal.files.map((f) => f.path) };
}

async function rollBack(journal: Journal): Promise<void> {
  for (const entry of journal.files) {
    if (entry.before === null) await rm(entry.path, { force: true });
    else await writeFileAtomic(entry.path, Buffer.from(entry.before, 'base64'));
  }
}

/** A journal read from disk names only files under the config or state root. */
function guardPath(paths: Pick<SvcPaths, 'stateRoot' | 'configRoot'>, path: string): void {
  const inside = (root: string) => {
    const rel = relative(root, path);
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  };
  if (!isAbsolute(path) || !(inside(paths.configRoot) || inside(paths.stateRoot))) throw new Error(`change set path outside the config and state roots: ${path}`);
}

/**
 * TEST HOOK, for the crash test only; ignored unless SVC_TEST_CHANGESET_PAUSE_AFTER is set.
 * After that many files of a change set are written, announce it with `<journal>.paused`
 * and wait (without blocking the event loop) until the marker is removed, so a test can
 * SIGKILL the gateway with the set half-written.
 */
async function pauseForTests(journalPath: string, written: number): Promise<void> {
  const after = process.env[PAUSE_AFTER_FILES_ENV];
  if (!after || Number(after) !== written) return;
  const marker = `${journalPath}.paused`;
  await writeFile(marker, '');
  while (await access(marker).then(() => true, () => false)) await new Promise((resolve) => setTimeout(resolve, 20));
}
