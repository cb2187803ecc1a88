// Generated images, kept as <state>/images/cache/<uuid>.png and served at
// /api/images/cache/<uuid>.png (SPEC.md, "image cache file"). Files are written atomically
// (a reader never sees half a PNG) and only names of exactly that shape are ever read, so a
// name taken from a URL cannot reach outside the folder. The folder keeps the newest
// `maxFiles` images; older ones are removed after each write.
import { randomUUID } from 'node:crypto';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { ImageError } from '../../protocol/errors.js';

const CACHE_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.png$/;

export const IMAGE_CACHE_ROUTE = '/api/images/cache';

export class ImageCache {
  constructor(
    readonly dir: string,
    private readonly maxFiles = 500,
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

  /** Remove the oldest images beyond maxFiles (best effort; one pass at a time). */
  async prune(): Promise<number> {
    if (this.pruning) return 0;
    this.pruning = true;
    try {
      const names = (await readdir(this.dir).catch(() => [] as string[])).filter((n) => CACHE_NAME.test(n));
      if (names.length <= this.maxFiles) return 0;
      const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(this.dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
      dated.sort((a, b) => a.t - b.t || a.n.localeCompare(b.n));
      const doomed = dated.slice(0, dated.length - this.maxFiles);
      await Promise.all(doomed.map(({ n }) => unlink(join(this.dir, n)).catch(() => undefined)));
      return doomed.length;
    } finally {
      this.pruning = false;
    }
  }
}
