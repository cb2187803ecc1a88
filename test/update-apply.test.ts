// svc update applied for real: builds of this checkout under other versions are published to
// a real npm registry (verdaccio), and the gateway, started from the checkout, updates itself
// through `svc update` as a user would: the version is downloaded, verified, installed into
// <prefix>/versions/<v> with its dependencies (npm), and the gateway restarts on it at the same
// address. A broken build (its `svc serve` exits) is switched back by itself, one that rejects
// the config is never switched to; --rollback goes
// back to the checkout; --target goes to a kept version, and to an older one only with
// --allow-downgrade. Config and state survive each step byte for byte.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveHolder } from '../src/config/instance-lock.js';
import { api, REPO_ROOT, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';
import { checkoutPackage, PACKAGE, startNpmRegistry, type LocalRegistry } from './helpers/npm-registry.js';
import { waitFor } from './helpers/wait.js';

const CURRENT = PACKAGE.version;
const GOOD = '99.3.0';
const BROKEN = '99.4.0';
const REJECTS = '99.5.0';
/** Older than GOOD: a downgrade once GOOD runs. */
const OLDER = '99.2.0';

let registry: LocalRegistry;
let home: TempHome;
let gw: Gateway;
const prefix = mkdtempSync(join(tmpdir(), 'svc-prefix-'));

beforeAll(async () => {
  registry = await startNpmRegistry();
  registry.publish(checkoutPackage(registry, GOOD));
  registry.publish(checkoutPackage(registry, BROKEN, { brokenAt: 'serve' }), 'broken');
  registry.publish(checkoutPackage(registry, REJECTS, { brokenAt: 'validate' }), 'broken');
  // Under a tag of its own: `latest` stays GOOD.
  registry.publish(checkoutPackage(registry, OLDER), 'older');
  home = tempHome({
    'svc.toml': ORIGINAL_SVC_TOML,
    'slots/chat.toml': '[slot]\nname = "chat"\nport = 8131\ndevice = "cpu"\n',
  });
  gw = await startGateway(home.home, { env: { SVC_NPM_REGISTRY: registry.url, SVC_PREFIX: prefix, SVC_UPDATE_HEALTH_TIMEOUT_S: '30' } });
}, 120_000);

afterAll(async () => {
  // After a restart the gateway is no child of this test: it is found by the home's lock.
  const holder = liveHolder(home.stateRoot);
  if (holder) process.kill(holder.pid, 'SIGTERM');
  await gw?.stop();
  await waitFor(() => !liveHolder(home.stateRoot), { what: 'the gateway that holds the lock to stop', interval: 100 });
  registry?.stop();
  rmSync(prefix, { recursive: true, force: true });
});

const update = (args: string[]) => runSvcAsync(['update', ...args], { home: home.home, env: { SVC_API_URL: gw.url } });
/** svc doctor's look at the update layout. */
const doctorUpdates = async () => (JSON.parse((await runSvcAsync(['doctor', '--json'], { home: home.home, env: { SVC_PREFIX: prefix } })).stdout) as { checks: Array<{ id: string; status: string; message: string }> }).checks.find((c) => c.id === 'updates');
const runningVersion = async () => (await api(gw.url, '/api/status')).json.version as string;
const current = () => readlinkSync(join(prefix, 'current'));
const previous = () => JSON.parse(readFileSync(join(home.stateRoot, 'svc.previous'), 'utf8')) as { version: string; path: string };

/** Every config file, and the state files an update must not touch, by content hash. */
function snapshot(): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (root: string, dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(root, path);
      else files[relative(root, path)] = sha256(readFileSync(path));
    }
  };
  walk(home.configRoot, home.configRoot);
  const registryToml = join(home.stateRoot, 'registry', 'registry.toml');
  if (existsSync(registryToml)) files.registry = sha256(readFileSync(registryToml));
  return files;
}

const ORIGINAL_SVC_TOML = '# kept as written\n[slots]\nidle_timeout_s = 120\n';
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
/** The snapshot without migration backups (each migration keeps one more). */
const withoutBackups = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).filter(([name]) => !/\.bak(\.\d+)?$/.test(name)));
const jobTo = (version: string) => readdirSync(join(home.stateRoot, 'update-jobs')).filter((n) => n.endsWith('.json')).map((n) => JSON.parse(readFileSync(join(home.stateRoot, 'update-jobs', n), 'utf8'))).find((j) => j.to.version === version);

describe('svc update applied against a real npm registry', () => {

  it('updates to the newest stable version: installed beside the checkout, its config migrations run (with a backup), current switched, the gateway back on the same address as the new version', async () => {
    const before = snapshot();
    const result = await update([]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`update ${CURRENT} -> ${GOOD}`);
    for (const state of ['downloading', 'verifying', 'installing', 'migrating', 'switching', 'restarting', 'health_check', 'applied']) expect(result.stdout).toContain(`  ${state}: `);
    expect(result.stdout).toContain(`svc ${GOOD} runs (was ${CURRENT})`);
    expect(await runningVersion()).toBe(GOOD);
    expect(current()).toBe(join('versions', GOOD));
    expect(previous()).toEqual({ version: CURRENT, path: REPO_ROOT, recorded_at: expect.any(String) });
    // The running gateway is the installed tree's, not the checkout's.
    const holder = liveHolder(home.stateRoot)!;
    expect(readFileSync(`/proc/${holder.pid}/cmdline`, 'utf8')).toContain(join(prefix, 'current', 'dist/bin/svc.js'));
    // A real install: its dependencies are there (the native one built), its devDependencies are not.
    const tree = join(prefix, 'versions', GOOD);
    expect(existsSync(join(tree, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    expect(existsSync(join(tree, 'node_modules/vitest'))).toBe(false);
    expect(JSON.parse(readFileSync(join(tree, '.svc-install.json'), 'utf8')).integrity).toMatch(/^sha512-/);
    // The one change to config: the new version's migration of svc.toml (it had no schema_version: 1), the original kept as the backup.
    expect(jobTo(GOOD).migration).toMatchObject({ migrated: true, from: 1, to: 3 });
    const migrated = readFileSync(join(home.configRoot, 'svc.toml'), 'utf8');
    expect(migrated).toMatch(/schema_version = 3/);
    expect(snapshot()).toEqual({ ...before, 'svc.toml': sha256(migrated), 'svc.toml.v1.bak': before['svc.toml'] });
    expect(await doctorUpdates()).toMatchObject({ status: 'ok', message: `${prefix}/current -> ${tree} (${GOOD}); svc update --rollback goes to ${CURRENT}` });
    const state = await api(gw.url, '/api/updates/state');
    expect(state.json).toMatchObject({ version: GOOD, running_tree: tree, current: tree, previous: { version: CURRENT, path: REPO_ROOT }, installed_versions: [GOOD], active_job: null });
  }, 300_000);

  it('a version whose gateway does not come up is switched back by itself: rolled_back, the previous version serving again, its migration undone', async () => {
    // The hand-written svc.toml again, so that the broken version migrates it and the rollback must put it back.
    home.write('svc.toml', ORIGINAL_SVC_TOML);
    const before = snapshot();
    const result = await update(['--target', BROKEN]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(1);
    expect(result.stdout).toContain('  rolling_back: ');
    expect(result.stderr).toContain(`${BROKEN} was not healthy and svc switched back to ${GOOD}`);
    expect(result.stderr).toContain('exited with code 1 before it answered');
    expect(await runningVersion()).toBe(GOOD);
    expect(current()).toBe(join('versions', GOOD));
    expect(previous()).toMatchObject({ version: CURRENT, path: REPO_ROOT });
    expect(jobTo(BROKEN)).toMatchObject({ state: 'rolled_back', restarted: false, error: { code: 'update.health_failed' }, migration: { migrated: true, from: 1, to: 3 } });
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toBe(ORIGINAL_SVC_TOML);
    expect(withoutBackups(snapshot())).toEqual(withoutBackups(before));
    // The broken build's own output says why, in the gateway log.
    expect(readFileSync(join(home.stateRoot, 'gateway.log'), 'utf8')).toContain('broken on purpose');
    // The gateway that came back follows the job to its end and records how it ended.
    await waitFor(async () => JSON.stringify((await api(gw.url, '/api/activity?limit=50')).json), { what: 'update.rolled_back in the activity', until: (activity) => activity.includes('update.rolled_back'), interval: 100 });
    expect(await doctorUpdates()).toMatchObject({ status: 'warn', message: expect.stringContaining(`ended rolled_back: svc ${BROKEN} exited with code 1`) });
  }, 300_000);

  it('a version that rejects the config is never switched to: its migration undone, the gateway never restarted', async () => {
    home.write('svc.toml', ORIGINAL_SVC_TOML);
    const before = snapshot();
    const pid = liveHolder(home.stateRoot)!.pid;
    const result = await update(['--target', REJECTS]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(1);
    expect(result.stderr).toContain('update.config_invalid');
    expect(result.stderr).toContain('its migration was undone');
    expect(result.stdout).not.toContain('  switching: ');
    expect(jobTo(REJECTS)).toMatchObject({ state: 'failed', restarted: false, error: { code: 'update.config_invalid' } });
    expect(liveHolder(home.stateRoot)!.pid).toBe(pid);
    expect(await runningVersion()).toBe(GOOD);
    expect(current()).toBe(join('versions', GOOD));
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toBe(ORIGINAL_SVC_TOML);
    expect(withoutBackups(snapshot())).toEqual(withoutBackups(before));
  }, 300_000);

  it('--rollback switches back to the tree svc ran from before the update (the checkout)', async () => {
    const before = snapshot();
    const result = await update(['--rollback']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain(`rollback ${GOOD} -> ${CURRENT}`);
    expect(await runningVersion()).toBe(CURRENT);
    expect(current()).toBe(REPO_ROOT);
    expect(previous()).toMatchObject({ version: GOOD, path: join(prefix, 'versions', GOOD) });
    expect(snapshot()).toEqual(before);
  }, 300_000);

  it('--target goes to a version installed before without installing it again', async () => {
    const before = snapshot();
    const installedAt = statSync(join(prefix, 'versions', GOOD, '.svc-install.json')).mtimeMs;
    const result = await update(['--target', GOOD]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('is installed already');
    expect(result.stdout).not.toContain('  downloading: ');
    expect(await runningVersion()).toBe(GOOD);
    expect(statSync(join(prefix, 'versions', GOOD, '.svc-install.json')).mtimeMs).toBe(installedAt);
    expect(previous()).toMatchObject({ version: CURRENT, path: REPO_ROOT });
    // svc.toml was put back to the hand-written one above, so this version migrates it again.
    expect(readFileSync(join(home.configRoot, 'svc.toml'), 'utf8')).toMatch(/schema_version = 3/);
    const { 'svc.toml': _migrated, ...rest } = withoutBackups(snapshot());
    const { 'svc.toml': _original, ...restBefore } = withoutBackups(before);
    expect(rest).toEqual(restBefore);
  }, 300_000);

  it('--target to an older version is refused without --allow-downgrade (issue 22), and goes through with it', async () => {
    const pid = liveHolder(home.stateRoot)!.pid;
    const refused = await update(['--target', OLDER]);
    expect(refused.status, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(`update.downgrade_refused: ${OLDER} is older than the running ${GOOD}`);
    expect(jobTo(OLDER)).toBeUndefined();
    expect(liveHolder(home.stateRoot)!.pid).toBe(pid);
    const allowed = await update(['--target', OLDER, '--allow-downgrade']);
    expect(allowed.status, `${allowed.stdout}\n${allowed.stderr}`).toBe(0);
    expect(allowed.stdout).toContain(`update ${GOOD} -> ${OLDER}`);
    expect(await runningVersion()).toBe(OLDER);
    expect(current()).toBe(join('versions', OLDER));
    expect(previous()).toMatchObject({ version: GOOD, path: join(prefix, 'versions', GOOD) });
  }, 300_000);
});
