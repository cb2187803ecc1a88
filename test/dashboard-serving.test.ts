// The gateway serves the dashboard's build at / on the API port (issue 25 §1): a fixture build,
// precompressed by the build's own script, behind a real gateway (SVC_DASHBOARD_DIR points
// at it). Files and views, headers, encodings, the API's own 404s, traversal, HEAD, auth mode.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startGateway, tempHome, useTempGateways, type Gateway, type TempHome } from './helpers/gateway.js';

const INDEX = '<!doctype html><html><head><title>svc</title><script type="module" src="/assets/index-AbC_1234.js"></script></head><body><div id="root"></div></body></html>\n';
const SCRIPT = `${'export const greeting = "hello from the dashboard";\n'.repeat(200)}`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with the path exactly as given (fetch and URL would resolve `..` away) and the body as bytes. */
function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

const json = (answer: Answer) => JSON.parse(answer.body.toString('utf8'));

let build: string;
let home: TempHome;
let gateway: Gateway;

beforeAll(async () => {
  build = mkdtempSync(join(tmpdir(), 'svc-web-'));
  mkdirSync(join(build, 'assets'));
  writeFileSync(join(build, 'index.html'), INDEX);
  writeFileSync(join(build, 'assets/index-AbC_1234.js'), SCRIPT);
  writeFileSync(join(build, 'assets/logo-9xY8w7v6.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/precompress.mjs'), build]);
  home = tempHome();
  gateway = await startGateway(home.home, { env: { SVC_DASHBOARD_DIR: build } });
}, 30_000);

afterAll(async () => {
  await gateway?.stop();
  rmSync(home.home, { recursive: true, force: true });
  rmSync(build, { recursive: true, force: true });
});

describe('the dashboard on the API port', () => {
  it('serves index.html at / with no-cache, the policy and nosniff', async () => {
    const answer = await get(gateway.url, '/');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(INDEX);
    expect(answer.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    expect(answer.headers['content-security-policy']).toMatch(/script-src 'self'.*connect-src 'self'/);
    expect(answer.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(gateway.output()).toContain(`dashboard: ${gateway.url}/`);
  });

  it('serves a hashed asset as immutable with its type', async () => {
    const answer = await get(gateway.url, '/assets/index-AbC_1234.js');
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe(SCRIPT);
    expect(answer.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=31536000, immutable', vary: 'Accept-Encoding' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    const png = await get(gateway.url, '/assets/logo-9xY8w7v6.png', { 'accept-encoding': 'br' });
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['content-encoding']).toBeUndefined(); // images are not precompressed
  });

  it('sends the precompressed copy the client accepts', async () => {
    const br = await get(gateway.url, '/assets/index-AbC_1234.js', { 'accept-encoding': 'gzip, br' });
    expect(br.headers).toMatchObject({ 'content-encoding': 'br', vary: 'Accept-Encoding' });
    expect(br.body.equals(readFileSync(join(build, 'assets/index-AbC_1234.js.br')))).toBe(true);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(Number(br.headers['content-length'])).toBeLessThan(SCRIPT.length / 10);
    const gz = await get(gateway.url, '/assets/index-AbC_1234.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const html = await get(gateway.url, '/slots', { 'accept-encoding': 'br' });
    expect(html.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(html.body).toString()).toBe(INDEX);
  });

  it('answers the views of the app with index.html, missing assets with a 404', async () => {
    for (const view of ['/slots', '/slots/abc', '/models/qwen3-0.6b', '/settings/?tab=auth', `/models/${'hf.co%2Forg%2F'}${'long-'.repeat(60)}Q8_0.gguf`]) {
      const answer = await get(gateway.url, view);
      expect(answer.status, view).toBe(200);
      expect(answer.body.toString(), view).toBe(INDEX);
      expect(answer.headers['cache-control'], view).toBe('no-cache');
    }
    for (const missing of ['/assets/index-Gone1234.js', '/favicon.ico']) {
      const answer = await get(gateway.url, missing);
      expect(answer.status, missing).toBe(404);
      expect(json(answer).error.code, missing).toBe('request.unknown_route');
    }
  });

  it('keeps the JSON 404 of unknown /api and /v1 paths, and their routes', async () => {
    for (const [method, path] of [['GET', '/api/nope'], ['GET', '/v1/nope'], ['GET', '/api'], ['POST', '/api/nope'], ['POST', '/api/n%20ope/'], ['PUT', '/v1/a%2Fb'], ['DELETE', '/v1/nope/deeper']]) {
      // JSON, as API clients send.
      const answer = await get(gateway.url, path!, { 'content-type': 'application/json' }, method);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(json(answer).error, `${method} ${path}`).toMatchObject({ code: 'request.unknown_route', details: { method, path } });
    }
    expect((await get(gateway.url, '/v1/models')).status).toBe(200);
    expect(json(await get(gateway.url, '/api/status')).version).toBeTypeOf('string');
    // A real /api or /v1 route still says which methods it has, GET included.
    for (const [method, path, allow] of [['POST', '/api/status', 'GET'], ['GET', '/v1/chat/completions', 'POST'], ['GET', '/api/settings/reload', 'POST']]) {
      const answer = await get(gateway.url, path!, { 'content-type': 'application/json' }, method);
      expect([answer.status, json(answer).error.code, answer.headers.allow], `${method} ${path}`).toEqual([405, 'request.method_not_allowed', allow]);
    }
  });

  it('refuses paths that climb out of the build', async () => {
    for (const path of ['/../package.json', '/assets/../../package.json', '/%2e%2e/%2e%2e/package.json', '/assets/..%2F..%2Fpackage.json', '/a%5C..%5Cindex.html']) {
      const answer = await get(gateway.url, path);
      expect(answer.status, path).toBe(400);
      expect(json(answer).error.code, path).toBe('request.invalid');
    }
  });

  it('answers HEAD with the headers and no body, and a matching If-None-Match with 304', async () => {
    const head = await get(gateway.url, '/slots/abc', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(INDEX));
    const first = await get(gateway.url, '/');
    const again = await get(gateway.url, '/', { 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const br = await get(gateway.url, '/', { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) });
    expect(br.status).toBe(200); // another encoding is another representation
  });
});

describe('the dashboard elsewhere', () => {
  const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);

  it('says it is not built when the build has no index.html, until it is', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'svc-web-empty-'));
    try {
      const g = await newGateway(newHome(), { env: { SVC_DASHBOARD_DIR: empty } });
      const answer = await get(g.url, '/slots');
      expect(answer.status).toBe(404);
      expect(json(answer).error.message).toContain('the dashboard is not built');
      expect(g.output()).toContain(`dashboard: not built (no index.html in ${empty}`);
      // Built while the gateway runs: seen without a restart, since a build without index.html is listed again.
      writeFileSync(join(empty, 'index.html'), INDEX);
      const built = await get(g.url, '/slots');
      expect([built.status, built.body.toString()]).toEqual([200, INDEX]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 30_000);

  it('needs a credential in auth mode, which the proxy sign-in gives', async () => {
    const secret = 'dashboard-test-proxy-secret-0123456789';
    const g = await newGateway(newHome({ 'proxy-secret': secret }), { env: { SVC_AUTH_ENABLED: '1', SVC_DASHBOARD_DIR: build } });
    const bare = await get(g.url, '/');
    expect(bare.status).toBe(401);
    expect(json(bare).error.code).toBe('auth.required');
    const signedIn = await get(g.url, '/', { 'x-forwarded-email': 'admin@example.test', 'x-svc-proxy-secret': secret });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.toString()).toBe(INDEX);
  }, 30_000);
});
