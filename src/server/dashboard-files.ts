// The dashboard's static files, as decisions with no I/O: which file a request path names,
// which encoding of it to send, and the headers it goes out with. The route
// (routes/dashboard.ts) does the reading and the caching; docs/dashboard.md says the rules.

/** The API's own prefixes (/mcp: the bundled tool servers): an unknown path under them is the API's JSON 404, never the app's page. */
const RESERVED = ['/api', '/v1', '/mcp'];

export type PathDecision =
  /** A path below the static root ('assets/index-AbC12345.js', 'slots/abc'): the build's file, else a view of the app. */
  | { kind: 'file'; file: string }
  /** The root or index.html itself. */
  | { kind: 'index' }
  /** Under /api or /v1: not the dashboard's. */
  | { kind: 'reserved' }
  /** Not a path that can name a file of the build (`..`, a NUL, a backslash, bad percent-encoding). */
  | { kind: 'refused'; reason: string };

export function isReservedPath(path: string): boolean {
  return RESERVED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** What a request path (query already removed) asks for; see fallsBackToIndex for a path the build lacks. */
export function decidePath(rawPath: string): PathDecision {
  if (isReservedPath(rawPath)) return { kind: 'reserved' };
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    return { kind: 'refused', reason: 'the path is not valid percent-encoding' };
  }
  // Checked after decoding too: %2F%2E%2E must not reach the API's prefixes or climb out.
  if (isReservedPath(path)) return { kind: 'reserved' };
  if (path.includes('\0') || path.includes('\\')) return { kind: 'refused', reason: 'the path holds a NUL or a backslash' };
  const segments = path.split('/').filter((segment) => segment !== '');
  if (segments.some((segment) => segment === '..' || segment === '.')) return { kind: 'refused', reason: 'the path holds a . or .. segment' };
  const file = segments.join('/');
  return file === '' || file === 'index.html' ? { kind: 'index' } : { kind: 'file', file };
}

/**
 * A path the build has no file for is a view of the app (/slots/abc, /models/qwen3-0.6b: ids
 * have dots too), answered with index.html so any view can be linked and reloaded; but not
 * under assets/ (a hashed file an old page asks for after a rebuild) nor a top-level file of
 * a type the build ships (/favicon.ico): a script or an icon must not get HTML back.
 */
export function fallsBackToIndex(file: string): boolean {
  if (file.startsWith('assets/')) return false;
  return file.includes('/') || !Object.hasOwn(TYPES, extensionOf(file));
}

export type Encoding = 'br' | 'gzip' | 'identity';

/**
 * The encoding to send, from Accept-Encoding and the precompressed copies the build has:
 * brotli before gzip (smaller), each only when the client accepts it with a q above 0.
 */
export function chooseEncoding(acceptEncoding: string | undefined, available: ReadonlySet<Encoding>): Encoding {
  if (!acceptEncoding) return 'identity';
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const accepts = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (available.has('br') && accepts('br')) return 'br';
  if (available.has('gzip') && accepts('gzip')) return 'gzip';
  return 'identity';
}

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  map: 'application/json; charset=utf-8',
  webmanifest: 'application/manifest+json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  wasm: 'application/wasm',
};

function extensionOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return dot < 0 ? '' : file.slice(dot + 1).toLowerCase();
}

export function contentTypeOf(file: string): string {
  return TYPES[extensionOf(file)] ?? 'application/octet-stream';
}

/** Types worth precompressing (scripts/precompress.mjs mirrors the list); images and fonts are compressed already. */
export const COMPRESSIBLE = /\.(html|js|mjs|css|json|map|svg|txt|webmanifest|ico|wasm)$/i;

/**
 * Vite writes hashed names (index-B2xY_9aQ.js) into assets/ only: a new build is new names,
 * so those never change and may be cached for a year. Everything else (index.html, the
 * favicon) keeps its name across builds, so the browser revalidates it each time.
 */
export function isHashedAsset(file: string): boolean {
  return file.startsWith('assets/') && /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/i.test(file);
}

/**
 * No inline script or style, nothing from another origin, API calls to this origin only.
 * img-src allows data: for icons a bundler inlines (and the Playground's generated images);
 * media-src allows blob: for the Playground's speech, played from the bytes the page itself
 * fetched (an object URL); nothing may frame the page.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "media-src 'self' blob:", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/** The headers of one dashboard file as sent in one encoding (Content-Length is the route's). */
export function headersFor(file: string, encoding: Encoding, etag: string): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': contentTypeOf(file),
    'cache-control': isHashedAsset(file) ? 'public, max-age=31536000, immutable' : 'no-cache',
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
    // Each encoding is its own representation, so it has its own validator.
    etag: encoding === 'identity' ? `"${etag}"` : `"${etag}-${encoding}"`,
    vary: 'Accept-Encoding',
  };
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  return headers;
}
