// The dashboard: the static files `npm run build` writes into dist/web (vite, then
// scripts/precompress.mjs), served at / on the API port. Every path that is not the API's
// own and not another route ends here (GET /*): a file of the build, or index.html for a
// route of the app. The rules are in dashboard-files.ts and docs/dashboard.md.
//
// Files are read with async fs on first use and kept in memory (the build is a few hundred
// KB): no disk work on the event loop while requests flow. A rebuild is seen after a restart.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PACKAGE_ROOT } from '../../lib/code-dir.js';
import { RequestError } from '../../protocol/errors.js';
import { chooseEncoding, COMPRESSIBLE, decidePath, type Encoding, fallsBackToIndex, headersFor } from '../dashboard-files.js';

/**
 * Where the build is: dist/web in the package, or SVC_DASHBOARD_DIR (a build elsewhere,
 * and the tests' fixture) when set.
 */
export function dashboardRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.SVC_DASHBOARD_DIR || join(PACKAGE_ROOT, 'dist', 'web');
}

interface Entry {
  readonly variants: ReadonlyMap<Encoding, Buffer>;
  readonly available: ReadonlySet<Encoding>;
  readonly etag: string;
}

/** The build's files, listed once and each read once, all in memory from then on. */
export class DashboardFiles {
  private listing: Promise<ReadonlySet<string>> | undefined;
  private readonly entries = new Map<string, Promise<Entry>>();

  constructor(readonly root: string) {}

  /** A file of the build by its path below the root, or undefined when the build has none. */
  async get(file: string): Promise<Entry | undefined> {
    const files = await this.files();
    if (!files.has(file)) return undefined;
    let entry = this.entries.get(file);
    if (!entry) {
      entry = this.read(file);
      this.entries.set(file, entry);
      entry.catch(() => this.entries.delete(file)); // a failed read is tried again next time
    }
    return entry;
  }

  /** Every file below the root, the .gz/.br copies aside. Kept once it holds index.html (before a first build, asked again). */
  private files(): Promise<ReadonlySet<string>> {
    if (!this.listing) {
      const listing = walk(this.root).then((paths) => new Set(paths.filter((path) => !/\.(gz|br)$/.test(path))));
      this.listing = listing;
      listing.then((set) => { if (!set.has('index.html')) this.listing = undefined; }, () => { this.listing = undefined; });
    }
    return this.listing;
  }

  private async read(file: string): Promise<Entry> {
    const variants = new Map<Encoding, Buffer>([['identity', await readFile(join(this.root, file))]]);
    if (COMPRESSIBLE.test(file)) {
      for (const [encoding, ext] of [['br', 'br'], ['gzip', 'gz']] as const) {
        const copy = await readFile(join(this.root, `${file}.${ext}`)).catch(() => undefined);
        if (copy) variants.set(encoding, copy);
      }
    }
    const etag = createHash('sha256').update(variants.get('identity')!).digest('base64url').slice(0, 22);
    return { variants, available: new Set(variants.keys()), etag };
  }
}

/** Every file below `root`, as paths relative to it with / separators; none when it does not exist. */
async function walk(root: string, below = ''): Promise<string[]> {
  // By hand rather than readdir's `recursive`, whose entries lack parentPath before Node 20.12.
  const entries = await readdir(join(root, below), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
    throw error;
  });
  const found: string[] = [];
  for (const entry of entries) {
    const path = below === '' ? entry.name : `${below}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await walk(root, path)));
    else if (entry.isFile()) found.push(path);
  }
  return found;
}

const unknownRoute = (method: string, path: string) => new RequestError('request.unknown_route', `No route ${method} ${path}`, { method, path });

export function registerDashboardRoutes(app: FastifyInstance, files = new DashboardFiles(dashboardRoot())): void {
  app.get('/*', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    const decision = decidePath(path);
    // /api and /v1 paths no GET route has reach this route only because it takes everything:
    // the API's own answer is the not-found handler's (app.ts), a 405 where another method has the path.
    if (decision.kind === 'reserved') return reply.callNotFound();
    if (decision.kind === 'refused') throw new RequestError('request.invalid', `${path} cannot name a file of the dashboard: ${decision.reason}`, { path });
    let file = decision.kind === 'file' ? decision.file : 'index.html';
    let entry = await files.get(file);
    if (!entry && decision.kind === 'file' && !fallsBackToIndex(file)) throw unknownRoute(request.method, path);
    if (!entry) {
      file = 'index.html';
      entry = await files.get(file);
      if (!entry) throw new RequestError('request.unknown_route', `No route ${request.method} ${path}: the dashboard is not built (no index.html in ${files.root}); run npm run build`, { method: request.method, path });
    }
    const encoding = chooseEncoding(request.headers['accept-encoding'], entry.available);
    const headers = headersFor(file, encoding, entry.etag);
    // An allowed cross-origin request already varies on Origin (cors.ts): keep that.
    const prior = reply.raw.getHeader('vary');
    if (prior) headers.vary = `${String(prior)}, ${headers.vary}`;
    reply.headers(headers);
    if (request.headers['if-none-match']?.split(',').some((tag) => tag.trim() === headers.etag)) return reply.code(304).send();
    return reply.send(entry.variants.get(encoding)!);
  });
}
