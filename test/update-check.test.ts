// svc update against a real npm registry (verdaccio, on this machine): versions of svc's
// package published with the npm CLI, the check per channel (stable follows `latest`,
// nightly the `nightly` tag), switching the channel (kept in svc.toml), an unknown target,
// an unreachable registry or one without the package, what apply refuses before it starts
// (from a LAN client everything, issue 22; from the host a downgrade without allow_downgrade),
// and a tampered tarball (test/update-apply.test.ts applies real builds).
// The gateway listens on 0.0.0.0 so that a client in a network namespace of the test's own
// reaches it as a LAN client would.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { lanSkipReason, openLan, type Lan } from './helpers/lan.js';
import { PACKAGE, startNpmRegistry, stubPackage, type LocalRegistry } from './helpers/npm-registry.js';

const NAME = PACKAGE.name;
const CURRENT = PACKAGE.version;
/** Older than the running version, and not published. */
const OLDER = '0.0.1';

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
  gw = await startGateway(home.home, { args: ['--host', '0.0.0.0'], env: { SVC_NPM_REGISTRY: url, SVC_PREFIX: prefix } });
}, 120_000);
afterAll(async () => {
  await gw?.stop();
  registry?.stop();
  rmSync(prefix, { recursive: true, force: true });
});

const svc = (args: string[]) => runSvcAsync(['update', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
const noJobStarted = async () => {
  expect((await api(gw.url, '/api/updates/state')).json.active_job).toBeNull();
  expect(existsSync(join(home.stateRoot, 'update-jobs'))).toBe(false);
};

describe('svc update against a real npm registry', () => {
  it('checks the stable channel: the latest tag is newer, so an update is available', async () => {
    const check = await svc(['--check', '--json']);
    expect(check.status, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toEqual({ package: NAME, registry: url, current: CURRENT, channel: 'stable', published: true, latest: '99.1.0', update_available: true, versions: ['99.2.0-nightly.1', '99.1.0', CURRENT] });
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

  it('refuses a version older than the running one without allow_downgrade (409 update.downgrade_refused), and goes on to the registry with it', async () => {
    const refused = await api(gw.url, '/api/updates/apply', { method: 'POST', body: { version: OLDER } });
    expect([refused.status, refused.json.error.code]).toEqual([409, 'update.downgrade_refused']);
    expect(refused.json.error.details).toEqual({ current: CURRENT, target: OLDER });
    expect(refused.json.error.message).toContain('--allow-downgrade');
    await noJobStarted();
    // Allowed, it is past the guard: the registry is asked, and it has no such version.
    const allowed = await api(gw.url, '/api/updates/apply', { method: 'POST', body: { version: OLDER, allow_downgrade: true } });
    expect([allowed.status, allowed.json.error.code]).toEqual([404, 'update.version_not_found']);
    await noJobStarted();
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
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toMatch(/\[updates\][^[]*channel = "nightly"/);
    expect((await api(gw.url, '/api/updates/channel')).json).toEqual({ channel: 'nightly' });
    const bad = await api(gw.url, '/api/updates/channel', { method: 'PUT', body: { channel: 'beta' } });
    expect([bad.status, bad.json.error.code]).toEqual([400, 'request.invalid']);
  });

  it('follows the channel a file written before schema_version 3 names under [telemetry]; a new choice goes to [updates] and wins', async () => {
    const old = tempHome({ 'svc.toml': '[telemetry]\nchannel = "nightly"\n' });
    const other = await startGateway(old.home, { env: { SVC_NPM_REGISTRY: url, SVC_PREFIX: prefix } });
    const run = (args: string[]) => runSvcAsync(['update', ...args], { home: old.home, env: { SVC_API_URL: other.url } });
    try {
      expect((await api(other.url, '/api/updates/channel')).json).toEqual({ channel: 'nightly' });
      expect((await run(['--check'])).stdout).toContain('nightly: 99.2.0-nightly.1 — an update is available');
      expect((await api(other.url, '/api/features')).json.update_channel).toBe('nightly');
      const stable = await run(['--channel', 'stable', '--check']);
      expect(stable.status, stable.stderr).toBe(0);
      expect(stable.stdout).toContain('stable: 99.1.0 — an update is available');
      expect((await api(other.url, '/api/updates/channel')).json).toEqual({ channel: 'stable' });
      // The gateway writes the new key beside the old one (`svc config migrate` removes it); the new one counts.
      expect(readFileSync(join(old.configRoot, 'svc.toml'), 'utf8')).toMatch(/\[updates\][^[]*channel = "stable"/);
    } finally {
      await other.stop();
    }
    const after = await startGateway(old.home, { env: { SVC_NPM_REGISTRY: url, SVC_PREFIX: prefix } });
    try {
      expect((await api(after.url, '/api/updates/channel')).json).toEqual({ channel: 'stable' });
    } finally {
      await after.stop();
    }
  });

  it('a registry without the package: --check prints the running version and says so, and exits 1 (it could not tell); a plain update exits 1 saying why', async () => {
    const empty = await startNpmRegistry();
    const other = await startGateway(tempHome().home, { env: { SVC_NPM_REGISTRY: empty.url } });
    const run = (args: string[]) => runSvcAsync(['update', ...args], { home: home.home, env: { SVC_API_URL: other.url } });
    try {
      const check = await run(['--check']);
      expect(check.status).toBe(1);
      expect(check.stdout).toContain(`svc ${CURRENT} (channel stable, registry ${empty.url})`);
      expect(check.stdout).toContain(`the registry ${empty.url} has no ${NAME} package`);
      expect(check.stderr).toContain(`svc: the registry ${empty.url} has no ${NAME} package: cannot tell whether an update exists`);
      const json = await run(['--check', '--json']);
      expect(json.status).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({ package: NAME, registry: empty.url, current: CURRENT, channel: 'stable', published: false, latest: null, update_available: false, versions: [] });
      const plain = await run([]);
      expect(plain.status).toBe(1);
      expect(plain.stderr).toContain(`has no ${NAME} package: nothing to update to (svc ${CURRENT} runs)`);
    } finally {
      await other.stop();
      empty.stop();
    }
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

describe.skipIf(lanSkipReason())('update apply and rollback from a LAN client', () => {
  let lan: Lan;
  beforeAll(async () => {
    lan = await openLan();
  });
  afterAll(() => lan?.close());

  it('are refused with 403 config.host_only naming the route, before any job or registry request, each one an activity row', async () => {
    const url = lan.url(gw.port);
    for (const body of [{ version: OLDER }, { version: OLDER, allow_downgrade: true }, { version: '99.1.0' }, {}]) {
      const answer = await lan.request(`${url}/api/updates/apply`, { method: 'POST', body });
      expect([answer.status, answer.json.error.code], JSON.stringify(body)).toEqual([403, 'config.host_only']);
      expect(answer.json.error.details.keys).toEqual(['POST /api/updates/apply']);
    }
    // A JSON body, as every client that is not a form sends one (the front door refuses simple posts).
    const rollback = await lan.request(`${url}/api/updates/rollback`, { method: 'POST', body: {} });
    expect([rollback.status, rollback.json.error.code]).toEqual([403, 'config.host_only']);
    expect(rollback.json.error.details.keys).toEqual(['POST /api/updates/rollback']);
    expect((await api(gw.url, '/api/updates/state')).json.active_job).toBeNull();
    expect(existsSync(join(prefix, 'versions', '99.1.0'))).toBe(false);
    const rows = (await api(gw.url, '/api/activity?action=update.*')).json.items as Array<Record<string, unknown>>;
    const refusals = rows.filter((r) => r.outcome === 'error' && (r.details as { client?: string }).client === lan.clientAddress);
    expect(refusals.map((r) => r.action).sort()).toEqual(['update.apply', 'update.apply', 'update.apply', 'update.apply', 'update.rollback']);
    expect(refusals.find((r) => r.action === 'update.rollback')).toMatchObject({ details: { code: 'config.host_only', refused: ['POST /api/updates/rollback'] } });
    expect(refusals.map((r) => r.target)).toContain(OLDER);
  });
});
