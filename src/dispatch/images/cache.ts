// Generated images, kept as <state>/images/cache/<uuid>.png and served at
// /api/images/cache/<uuid>.png (docs/routing.md, "Images and the GPU arbiter"). Files are written atomically
// (a reader never sees half a PNG) and only names of exactly that shape are ever read, so a
// name taken from a URL cannot reach outside the folder. The folder keeps the newest
// `maxFiles` images within `maxBytes` (docs/troubleshooting.md, "Bounded stores"); older ones
// are removed after each write, off the request's path, and each removal is reported (onPrune:
// a `store.pruned` event).
import { randomUUID } from 'node:crypto';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { ImageError } from '../../protocol/errors.js';

const CACHE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.png$/;

export const IMAGE_CACHE_ROUTE = '/api/images/cache';
export const IMAGE_CACHE_MAX_FILES = 500;
export const IMAGE_CACHE_MAX_BYTES = 1024 * 1024 * 1024;

export interface ImageCachePrune {
  reason: 'max_files' | 'max_bytes';
  removed: number;
  rows: number;
  bytes: number;
}

export class ImageCache {
  constructor(
    readonly dir: string,
    private readonly maxFiles = IMAGE_CACHE_MAX_FILES,
    private readonly maxBytes = IMAGE_CACHE_MAX_BYTES,
    private readonly onPrune: (prune: ImageCachePrune) => void = () => undefined,
  ) {}

  /** Store a PNG; returns its file name (`<uuid>.png`). */
  async store(png: Buffer): Promise<string> {
    const name = `${randomUUID()}.png`;
    await writeFileAtomic(join(this.dir, name), png);
    void this.prune();
    return name;
  }

  /** The PNG named `name`, or image.cache_miss (also for any name not of the cache's shape). */
  async read(name: string): Promise<Buffer> {
    if (!CACHE_NAME.test(name)) throw this.miss(name);
    try {
      return await readFile(join(this.dir, name));
    } catch {
      throw this.miss(name);
    }
  }

  static url(name: string): string {
    return `${IMAGE_CACHE_ROUTE}/${name}`;
  }

  private miss(name: string): ImageError {
    return new ImageError('image.cache_miss', `no cached image is named ${JSON.stringify(name)}`, { name });
  }

  private pruning = false;

  /** Remove the oldest images beyond maxFiles and maxBytes (best effort; one pass at a time). */
  async prune(): Promise<number> {
    if (this.pruning) return 0;
    this.pruning = true;
    try {
      const names = (await readdir(this.dir).catch(() => [] as string[])).filter((n) => CACHE_NAME.test(n));
      const files = await Promise.all(names.map(async (n) => {
        const stats = await stat(join(this.dir, n)).catch(() => undefined);
        return { n, t: stats?.mtimeMs ?? 0, size: stats?.size ?? 0 };
      }));
      files.sort((a, b) => a.t - b.t || a.n.localeCompare(b.n));
      const { doomed, reason } = beyondCaps(files, this.maxFiles, this.maxBytes);
      if (doomed.length === 0) return 0;
      await Promise.all(doomed.map(({ n }) => unlink(join(this.dir, n)).catch(() => undefined)));
      const kept = files.slice(doomed.length);
      this.onPrune({ reason, removed: doomed.length, rows: kept.length, bytes: kept.reduce((sum, f) => sum + f.size, 0) });
      return doomed.length;
    } finally {
      this.pruning = false;
    }
  }
}

/** The oldest files (of `oldestFirst`) to remove so that at most maxFiles of at most maxBytes stay. */
export function beyondCaps<F extends { size: number }>(oldestFirst: readonly F[], maxFiles: number, maxBytes: number): { doomed: F[]; reason: ImageCachePrune['reason'] } {
  let bytes = oldestFirst.reduce((sum, f) => sum + f.size, 0);
  let cut = Math.max(0, oldestFirst.length - maxFiles);
  const reason = cut > 0 ? 'max_files' : 'max_bytes';
  for (let i = 0; i < cut; i++) bytes -= oldestFirst[i]!.size;
  // The newest file stays even alone over maxBytes: it was just written for a request.
  while (bytes > maxBytes && cut < oldestFirst.length - 1) bytes -= oldestFirst[cut++]!.size;
  return { doomed: oldestFirst.slice(0, cut), reason };
}
