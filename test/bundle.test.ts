// The `svc` executable as users get it: loaded from the single-file build with a code cache
// in the user's cache directory, and from the module tree when told to (SVC_BUNDLE=0).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { api, REPO_ROOT, runSvc, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { waitFor } from './helpers/wait.js';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function serveAndCheck(home: string, env: Record<string, string>): Promise<Gateway> {
  const gateway = await startGateway(home, { env: { SVC_TRACE_STARTUP: '1', ...env } });
  const status = await api(gateway.url, '/api/status');
  expect(status.status).toBe(200);
  expect((status.json as { version: string }).version).toBe(VERSION);
  // The /v1 front door and Fastify's routes both answer from the bundle.
  expect((await api(gateway.url, '/v1/models')).status).toBe(200);
  expect((await api(gateway.url, '/v1/chat/completions', { method: 'POST', body: { model: 'nope', messages: [] } })).status).toBe(404);
  // A dependency the bundle loads on first use (argon2, for the token's hash): from a code
  // cache, Node 20 would fail an import() here (scripts/bundle.mjs turns them into require()).
  expect((await api(gateway.url, '/api/auth/tokens', { method: 'POST', body: { label: `bundle-${gateway.process.pid}`, scope: 'read-only' } })).status).toBe(201);
  return gateway;
}

describe('the svc executable', () => {
  it('is built as one ASCII file beside its licences', () => {
    const bundle = readFileSync(join(REPO_ROOT, 'dist/bundle/svc.cjs'));
    expect(bundle.length).toBeGreaterThan(100_000);
    expect(bundle.findIndex((byte) => byte > 0x7f)).toBe(-1);
    expect(existsSync(join(REPO_ROOT, 'dist/bundle/svc.cjs.LEGAL.txt'))).toBe(true);
  });

  it('serves from the bundle, saves a code cache once listening, and starts from it next time', async () => {
    const { home } = tempHome();
    const cacheHome = mkdtempSync(join(tmpdir(), 'svc-cache-'));
    const env = { XDG_CACHE_HOME: cacheHome };
    const first = await serveAndCheck(home, env);
    expect(first.output()).toMatch(/svc: loaded dist\/bundle\/svc\.cjs in [\d.]+ ms, code cache miss \(/);
    await waitFor(() => first.output(), { what: 'the code cache to be saved', until: (out) => /code cache saved: \d+ bytes/.test(out) });
    expect(await first.stop()).toBe(0);
    const caches = readdirSync(join(cacheHome, 'svc/code-cache'));
    expect(caches).toHaveLength(1);
    expect(caches[0]).toMatch(/^[0-9a-f]{16}-node[\d.]+-\w+-[0-9a-f]{8}\.bin$/);

    const second = await serveAndCheck(home, env);
    expect(second.output()).toMatch(/code cache hit \(/);
    // V8 took it: nothing to save this time (the launcher says what it does with the cache once it serves).
    const decided = await waitFor(() => second.output(), { what: 'the launcher to say what it does with the code cache', until: (out) => /code cache \w+: (saving|nothing)/.test(out) });
    expect(decided).toMatch(/code cache hit: nothing to save/);
    expect(decided).not.toMatch(/code cache \w+: saving/);
    expect(await second.stop()).toBe(0);
  });

  it('loads the module tree with SVC_BUNDLE=0, and no cache with SVC_CODE_CACHE=0', async () => {
    const { home } = tempHome();
    const tree = await serveAndCheck(home, { SVC_BUNDLE: '0' });
    expect(tree.output()).toMatch(/svc: loading the module tree \(SVC_BUNDLE=0\)/);
    expect(await tree.stop()).toBe(0);
    const uncached = await serveAndCheck(home, { SVC_CODE_CACHE: '0' });
    expect(uncached.output()).toMatch(/svc: loaded dist\/bundle\/svc\.cjs in [\d.]+ ms, code cache off\n/);
    expect(await uncached.stop()).toBe(0);
  });

  it('in a checkout, runs the module tree, and says so, when the bundle is older than it (a build by tsc alone)', () => {
    const pkg = mkdtempSync(join(tmpdir(), 'svc-pkg-'));
    try {
      cpSync(join(REPO_ROOT, 'dist'), join(pkg, 'dist'), { recursive: true, filter: (src) => !/\.test\.(js|d\.ts|js\.map)$/.test(src) });
      cpSync(join(REPO_ROOT, 'package.json'), join(pkg, 'package.json'));
      // A checkout: the source beside the build (an installed package has none, and always runs its bundle).
      cpSync(join(REPO_ROOT, 'src/bin/svc.ts'), join(pkg, 'src/bin/svc.ts'));
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(pkg, 'node_modules'));
      const run = () => spawnSync(process.execPath, [join(pkg, 'dist/bin/svc.js'), '--version'], { encoding: 'utf8', env: { ...process.env, SVC_TRACE_STARTUP: '1', SVC_CODE_CACHE: '0' } });
      // The bundle made after the module tree (npm run build): the bundle runs.
      utimesSync(join(pkg, 'dist/bin/main.js'), 500_000_000, 500_000_000);
      utimesSync(join(pkg, 'dist/bundle/svc.cjs'), 500_000_050, 500_000_050);
      const current = run();
      expect(current.stdout.trim()).toBe(VERSION);
      expect(current.stderr).toMatch(/svc: loaded .*svc\.cjs in [\d.]+ ms, code cache off/);
      // tsc rewrote the module tree after the bundle was made.
      utimesSync(join(pkg, 'dist/bin/main.js'), 500_000_100, 500_000_100);
      const stale = run();
      expect(stale.status).toBe(0);
      expect(stale.stdout.trim()).toBe(VERSION);
      expect(stale.stderr).toContain('svc: dist/bundle/svc.cjs is older than the compiled code; running the module tree (`npm run build` makes the bundle anew)');
      expect(stale.stderr).toContain('svc: loading the module tree (the bundle is older than dist/bin/main.js)');
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  });

  it('answers a command the same from the bundle and from the module tree', () => {
    const { home } = tempHome();
    for (const args of [['--version'], ['config', 'validate', '--json'], ['nope']]) {
      const bundled = runSvc(args, { home });
      const tree = runSvc(args, { home, env: { SVC_BUNDLE: '0' } });
      expect({ status: bundled.status, stdout: bundled.stdout, stderr: bundled.stderr }).toEqual({ status: tree.status, stdout: tree.stdout, stderr: tree.stderr });
    }
  });
});
