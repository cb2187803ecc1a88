// svc update against a real npm registry (verdaccio, on this machine): versions of svc's
// package published with the npm CLI, the check per channel (stable follows `latest`,
// nightly the `nightly` tag), switching the channel (kept in svc.toml), an unknown target,
// an unreachable registry. Applying an update is not built yet and says so.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { freePort } from './helpers/ports.js';

const NAME = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string }).name;
const CURRENT = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let registry: ChildProcess;
let url: string;
let home: TempHome;
let gw: Gateway;
const dir = mkdtempSync(join(tmpdir(), 'svc-registry-npm-'));

/** Publish a version of the package name with the npm CLI (a package.json and a README are enough for the check). */
function publish(version: string, tag: string | undefined, npmrc: string): void {
  const pkg = join(dir, `pkg-${version}`);
  mkdirSync(pkg);
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: NAME, version, description: 'test build' }));
  writeFileSync(join(pkg, 'README.md'), '# test\n');
  execFileSync('npm', ['publish', '--registry', url, '--userconfig', npmrc, ...(tag ? ['--tag', tag] : [])], { cwd: pkg, stdio: 'pipe' });
}

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/`;
  writeFileSync(join(dir, 'config.yaml'), [
    `storage: ${join(dir, 'storage')}`,
    'auth:', '  htpasswd:', `    file: ${join(dir, 'htpasswd')}`, '    max_users: 10',
    'uplinks: {}',
    'packages:', "  '**':", '    access: $all', '    publish: $authenticated',
    `listen: 127.0.0.1:${port}`,
    'web:', '  enable: false',
    'log: { type: stdout, format: pretty, level: fatal }',
  ].join('\n'));
  registry = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/verdaccio/bin/verdaccio'), '--config', join(dir, 'config.yaml')], { stdio: 'ignore' });
  for (let i = 0; i < 300 && !(await fetch(`${url}-/ping`).then((r) => r.ok, () => false)); i++) await new Promise((r) => setTimeout(r, 50));
  const user = await fetch(`${url}-/user/org.couchdb.user:tester`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'tester', password: 'a-test-password' }) });
  const { token } = (await user.json()) as { token: string };
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `//127.0.0.1:${port}/:_authToken=${token}\n`);
  publish(CURRENT, undefined, npmrc);
  publish('99.1.0', undefined, npmrc);
  publish('99.2.0-nightly.1', 'nightly', npmrc);
  home = tempHome();
  gw = await startGateway(home.home, { env: { SVC_NPM_REGISTRY: url } });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  registry?.kill();
});

const svc = (args: string[]) => runSvcAsync(['update', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });

describe('svc update against a real npm registry', () => {
  it('checks the stable channel: the latest tag is newer, so an update is available', async () => {
    const check = await svc(['--check', '--json']);
    expect(check.status, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({ package: NAME, registry: url, current: CURRENT, channel: 'stable', latest: '99.1.0', update_available: true, versions: ['99.2.0-nightly.1', '99.1.0', CURRENT] });
    const text = await svc(['--check']);
    expect(text.stdout).toContain('stable: 99.1.0 — an update is available');
  });

  it('without --check says applying is not built yet and how to install the version by hand (exit 1); --rollback exit 2', async () => {
    const plain = await svc([]);
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain(`install 99.1.0 by hand: npm install -g ${NAME}@99.1.0`);
    const target = await svc(['--target', '9.9.9']);
    expect(target.status).toBe(1);
    expect(target.stderr).toContain(`the registry has no ${NAME}@9.9.9`);
    expect((await svc(['--rollback'])).status).toBe(2);
  });

  it('switches to the nightly channel, keeps it in svc.toml, and follows the nightly tag', async () => {
    const nightly = await svc(['--channel', 'nightly', '--check']);
    expect(nightly.status, nightly.stderr).toBe(0);
    expect(nightly.stdout).toContain('channel: nightly');
    expect(nightly.stdout).toContain('nightly: 99.2.0-nightly.1 — an update is available');
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toMatch(/\[telemetry\][^[]*channel = "nightly"/);
    expect((await api(gw.url, '/api/updates/channel')).json).toEqual({ channel: 'nightly' });
    const bad = await api(gw.url, '/api/updates/channel', { method: 'PUT', body: { channel: 'beta' } });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'request.invalid']);
  });

  it('an unreachable registry is 502 update.check_failed naming it', async () => {
    const other = await startGateway(tempHome().home, { env: { SVC_NPM_REGISTRY: 'http://127.0.0.1:1/' } });
    try {
      const answer = await api(other.url, '/api/updates/check');
      expect([answer.status, answer.json.error.code]).toEqual([502, 'update.check_failed']);
      expect(answer.json.error.message).toContain('http://127.0.0.1:1/');
    } finally {
      await other.stop();
    }
  });
});
