// Atomic file replacement: write a temp file in the same directory, fsync it, rename it
// over the target, fsync the directory. A crash at any point leaves either the old file or
// the new one, never a torn one. The target's mode is kept.
import { readdirSync, unlinkSync } from 'node:fs';
import { access, mkdir, open, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const TEMP_MARK = '.svc-tmp-';

export interface AtomicWriteOptions {
  /** Mode for a new file; an existing file keeps its own unless forceMode is set. */
  mode?: number;
  /** Give the file `mode` even when it exists with another (secrets: tokens.toml, proxy-secret). */
  forceMode?: boolean;
  /**
   * Whether the write must survive the host crashing (fsync of the file and the directory;
   * default true). A process crash never tears the file either way (write, then rename); a
   * record that means nothing after a host crash (a slot's state.json: its engine dies with
   * the host) skips the two fsyncs, which cost milliseconds on the way to a ready slot.
   */
  durable?: boolean;
  /**
   * Asked just before the rename, once the new content is on disk: false leaves the target
   * as it is (the temp file removed) and the write resolves to false. A writer that read the
   * target first uses it to keep the window in which another writer's change (a hand edit)
   * could be overwritten to the rename alone, not the whole write.
   */
  stillCurrent?: () => Promise<boolean>;
}

/**
 * Written without blocking the event loop: state files are written while requests flow.
 * Resolves to true, or to false when `options.stillCurrent` said not to replace the target.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<boolean> {
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const existing = options.forceMode ? undefined : await stat(target).then((s) => s.mode & 0o7777, () => undefined);
  const mode = existing ?? options.mode ?? 0o644;
  const temp = tempSiblingOf(target);
  const file = await open(temp, 'wx', mode);
  try {
    await file.writeFile(data);
    if (options.durable !== false) await file.sync();
  } catch (error) {
    await file.close();
    await unlink(temp);
    throw aboutTarget(error, target);
  }
  await file.close();
  await pauseBeforeRenameForTests(target, temp);
  if (options.stillCurrent && !(await options.stillCurrent().catch(() => false))) {
    await unlink(temp).catch(() => undefined);
    return false;
  }
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp);
    throw aboutTarget(error, target);
  }
  if (options.durable !== false) await fsyncDirectory(dir);
  return true;
}

async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  // Some filesystems refuse fsync on directories; the rename is still atomic.
  await handle?.sync().catch(() => undefined);
  await handle?.close();
}

/** A fresh temp name beside `target`, of the kind removeStaleTempFiles sweeps after a crash. */
export function tempSiblingOf(target: string): string {
  return join(dirname(target), `.${basename(target)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Names the file whose atomic writes pause before the rename (a path suffix); see below. */
export const PAUSE_BEFORE_RENAME_ENV = 'SVC_TEST_PAUSE_BEFORE_RENAME';
/** Appended to the temp file's name to announce the pause; it carries TEMP_MARK, so start-up removes it too. */
export const PAUSED_SUFFIX = '.paused';

/**
 * TEST HOOK, for tests that act between the write and the rename (test/crash-write.test.ts,
 * src/auth/token-store.test.ts); ignored unless the variable is set. When
 * SVC_TEST_PAUSE_BEFORE_RENAME is set and `target` ends with its value, the temp file is
 * complete and synced at this point: announce it with a marker `<temp>.paused`, then wait
 * (without blocking the event loop) until the marker is removed, so a test can SIGKILL the
 * process between the write and the rename, or edit the target there as a hand would.
 * Unset, it costs one environment lookup per write (config writes are rare and never on the
 * /v1 path).
 */
async function pauseBeforeRenameForTests(target: string, temp: string): Promise<void> {
  const suffix = process.env[PAUSE_BEFORE_RENAME_ENV];
  if (!suffix || !target.endsWith(suffix)) return;
  const marker = `${temp}${PAUSED_SUFFIX}`;
  await writeFile(marker, '');
  while (await access(marker).then(() => true, () => false)) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Errors of the temp file's write (which carry no path) or rename name the file being replaced. */
function aboutTarget(error: unknown, target: string): unknown {
  if (error instanceof Error) Object.assign(error, { path: target });
  return error;
}

/** Remove temp files a killed writer left behind in a directory; returns how many. */
export function removeStaleTempFiles(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.includes(TEMP_MARK)) continue;
    try {
      unlinkSync(join(dir, name));
      removed++;
    } catch {
      // Already gone, or another process owns it.
    }
  }
  return removed;
}
