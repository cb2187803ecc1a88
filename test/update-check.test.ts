// svc update against a real npm registry (verdaccio, on this machine): versions of svc's
// package published with the npm CLI, the check per channel (stable follows `latest`,
// nightly the `nightly` tag), switching the channel (kept in svc.toml), an unknown target,
// an unreachable registry, what apply refuses before it starts, and a tampered tarball
// (test/update-apply.test.ts applies real builds).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { PACKAGE, startNpmRegistry, stubPackage, type LocalRegistry } from './helpers/npm-registry.js';

const NAME = PACKAGE.name;
const CURRENT = PACKAGE.version;

let registry: LocalRegistry;
let url: string;
let home: TempHome;
let gw: Gateway;
const prefix = mkdtempSync(join(tmpdir(), 'svc-prefix-'));

beforeAll(async () => {
  registry = await startNpmRegistry();
  url = registry.url;
  registry.publish(stubPackage(registry, CURRENT));
  registry.publish(stubPackage(registry, '99.1.0'));
  registry.publish(stubPackage(registry, '99.2.0-nightly.1'), 'nightly');
  home = tempHome();
  gw = await startGateway(home.home, { env: { SVC_NPM_REGISTRY: url, SVC_PREFIX: prefix } });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  registry?.stop();
  rmSync(prefix, { recursive: true, force: true });
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

  it('refuses what it cannot do before starting a job: an unknown --target (exit 1), a rollback with no previous tree, a malformed version', async () => {
    const target = await svc(['--target', '9.9.9']);
    expect(target.status).toBe(1);
    expect(target.stderr).toContain(`the registry has no ${NAME}@9.9.9`);
    const rollback = await svc(['--rollback']);
    expect(rollback.status).toBe(1);
    expect(rollback.stderr).toContain('svc.previous records no tree');
    const missing = await api(gw.url, '/api/updates/apply', { method: 'POST', body: { version: '9.9.9' } });
    expect([missing.status, missing.json.error.code]).toEqual([404, 'update.version_not_found']);
    const bad = await api(gw.url, '/api/updates/apply', { method: 'POST', body: { version: '../../etc' } });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'request.invalid']);
    expect((await api(gw.url, '/api/updates/status/0123456789ab')).json.error.code).toBe('update.job_not_found');
  });

  it('a tarball that does not match the integrity the registry published is never unpacked: the job fails with update.integrity_failed', async () => {
    // The bytes on the registry's disk change after publishing; its metadata still has the published hash.
    const stored = join(registry.dir, 'storage', NAME, `${NAME}-99.1.0.tgz`);
    const original = readFileSync(stored);
    writeFileSync(stored, Buffer.concat([original, Buffer.from('tampered')]));
    try {
      const plain = await svc([]);
      expect(plain.status, plain.stdout).toBe(1);
      expect(plain.stderr).toContain('update.integrity_failed');
      expect(plain.stderr).toContain("does not match the registry's integrity");
      expect(existsSync(join(prefix, 'versions', '99.1.0'))).toBe(false);
      const state = await api(gw.url, '/api/updates/state');
      expect(state.json).toMatchObject({ version: CURRENT, current: null, previous: null, installed_versions: [], active_job: null });
    } finally {
      writeFileSync(stored, original);
    }
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
