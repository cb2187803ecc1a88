// Atomic file replacement: write a temp file in the same directory, fsync it, rename it
// over the target, fsync the directory. A crash at any point leaves either the old file or
// the new one, never a torn one. The target's mode is kept.
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

const TEMP_MARK = '.svc-tmp-';

export interface AtomicWriteOptions {
  /** Mode for a new file; an existing file keeps its own. */
  mode?: number;
}

/** The same steps as writeFileAtomicSync, without blocking the event loop (state files written while requests flow). */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const mode = (await stat(target).then((s) => s.mode & 0o7777, () => undefined)) ?? options.mode ?? 0o644;
  const temp = tempPathFor(target);
  const file = await open(temp, 'wx', mode);
  try {
    await file.writeFile(data);
    await file.sync();
  } catch (error) {
    await file.close();
    await unlink(temp);
    throw aboutTarget(error, target);
  }
  await file.close();
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp);
    throw aboutTarget(error, target);
  }
  await fsyncDirectoryAsync(dir);
}

const tempPathFor = (target: string) => join(dirname(target), `.${basename(target)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);

async function fsyncDirectoryAsync(dir: string): Promise<void> {
  const handle = await open(dir, 'r').catch(() => undefined);
  // Some filesystems refuse fsync on directories; the rename is still atomic.
  await handle?.sync().catch(() => undefined);
  await handle?.close();
}

export function writeFileAtomicSync(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(target);
  const mode = existingMode(target) ?? options.mode ?? 0o644;
  const temp = tempPathFor(target);
  const fd = openSync(temp, 'wx', mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw aboutTarget(error, target);
  }
  closeSync(fd);
  try {
    renameSync(temp, target);
  } catch (error) {
    unlinkSync(temp);
    throw aboutTarget(error, target);
  }
  fsyncDirectory(dir);
}

/** Errors of the temp file's write (which carry no path) or rename name the file being replaced. */
function aboutTarget(error: unknown, target: string): unknown {
  if (error instanceof Error) Object.assign(error, { path: target });
  return error;
}

function existingMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
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
