// Where the code cache lives and how it is written. One file per build of the bundle and Node
// binary, in the user's cache directory (the same root as scripts/build-llama-server.sh's):
// an installed tree may be read-only to the user running it, and the cache is the user's.
import { createHash } from 'node:crypto';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Code caches kept: one per build and Node version in use (a checkout and installed versions side by side). */
const KEEP = 8;

/** SVC_CODE_CACHE=0 turns the cache off; undefined is returned then. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SVC_CODE_CACHE === '0') return undefined;
  const root = env.SVC_CACHE_DIR?.trim() || join(env.XDG_CACHE_HOME?.trim() || join(homedir(), '.cache'), 'svc');
  return join(root, 'code-cache');
}

/**
 * The cache's file for the bundle whose SHA-256 is `digest`: the bundle's bytes, the Node
 * binary and the flags V8 runs with all decide whether V8 accepts a cache, so all are in the
 * name, and a cache made by one never stands in the way of another's.
 */
export function cacheFileFor(dir: string, digest: string): string {
  const flags = createHash('sha256').update(`${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS ?? ''}`).digest('hex');
  return join(dir, `${digest.slice(0, 16)}-node${process.version.slice(1)}-${process.arch}-${flags.slice(0, 8)}.bin`);
}

/**
 * Write `data` to `file` atomically (config/atomic.ts: a temp file renamed over it; not
 * durable, a cache lost to a host crash is made again), readable and writable by its owner
 * alone in a directory only they enter (launch.ts reads nothing else), then drop all but
 * the newest caches. Resolves to the bytes written; a failure to write is not svc's
 * failure, so it resolves to 0.
 */
export async function writeCodeCache(file: string, data: Buffer): Promise<number> {
  const dir = dirname(file);
  try {
    // Loaded here, once a cache is saved: nothing of it is needed to start.
    const { writeFileAtomic } = await import('../config/atomic.js');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(file, data, { mode: 0o600, forceMode: true, durable: false });
  } catch {
    return 0;
  }
  await pruneCaches(dir).catch(() => undefined);
  return data.length;
}

async function pruneCaches(dir: string): Promise<void> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.bin'));
  if (names.length <= KEEP) return;
  const dated = await Promise.all(names.map(async (name) => ({ name, mtime: (await stat(join(dir, name))).mtimeMs })));
  dated.sort((a, b) => b.mtime - a.mtime);
  await Promise.all(dated.slice(KEEP).map(({ name }) => unlink(join(dir, name)).catch(() => undefined)));
}
