// `npm pack` produces a package that installs into an empty directory and runs
// `svc --version` from the tarball, the way a user installs a release; its `svc doctor`
// tells of llama.cpp's releases, not of a build script the package does not ship.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/gateway.js';

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' } });

describe('npm pack', () => {
  it('installs from the tarball in an empty directory and runs svc --version', () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const out = mkdtempSync(join(tmpdir(), 'svc-pack-'));
    // --ignore-scripts: prepack would rebuild; `npm test` has just built dist/.
    npm(['pack', '--ignore-scripts', '--pack-destination', out], REPO_ROOT);
    const tarball = readdirSync(out).find((name) => name.endsWith('.tgz'));
    expect(tarball).toBeDefined();

    const contents = execFileSync('tar', ['-tzf', join(out, tarball!)], { encoding: 'utf8' }).split('\n');
    expect(contents).toContain('package/dist/bin/svc.js');
    // The single-file build the executable runs, with the licences of what it holds.
    expect(contents).toContain('package/dist/bundle/svc.cjs');
    expect(contents).toContain('package/dist/bundle/svc.cjs.LEGAL.txt');
    expect(contents.some((f) => f.endsWith('.test.js'))).toBe(false);

    const app = mkdtempSync(join(tmpdir(), 'svc-install-'));
    // What this proves is the package: its files, its bin, its dependency list resolving from
    // the registry. Not the native build of better-sqlite3 (the checkout's own `npm install`
    // proves that, with the same flags) nor node-llama-cpp's ~600 MB of optional GPU builds,
    // which `svc --version` never loads: skipping both takes this from minutes to seconds.
    npm(['install', '--prefer-offline', '--no-save', '--omit=optional', '--ignore-scripts', join(out, tarball!)], app);
    // From the bundle (npm gives every file of a tarball one date, so it is never older than
    // the module tree), its code cache in a directory of the test's own.
    const run = spawnSync(join(app, 'node_modules/.bin/svc'), ['--version'], { encoding: 'utf8', env: { ...process.env, SVC_TRACE_STARTUP: '1', SVC_CACHE_DIR: join(app, 'cache') } });
    expect(run.stdout.trim()).toBe(version);
    expect(run.stderr).toMatch(/svc: loaded .*node_modules\/svc-gateway\/dist\/bundle\/svc\.cjs in [\d.]+ ms, code cache miss/);

    // The package ships no scripts/: a missing llama-server is answered with what its user can do.
    const home = mkdtempSync(join(tmpdir(), 'svc-pack-home-'));
    mkdirSync(join(home, 'etc/svc/slots'), { recursive: true });
    writeFileSync(join(home, 'etc/svc/slots/chat.toml'), '[slot]\nname = "chat"\nport = 8081\nprovider = "llama-server"\ndevice = "cpu"\n');
    const doctor = spawnSync(join(app, 'node_modules/.bin/svc'), ['doctor', '--json'], { encoding: 'utf8', env: { ...process.env, SVC_HOME: home, SVC_LLAMA_SERVER: '', PATH: '/usr/bin:/bin', SVC_CACHE_DIR: join(app, 'cache') } });
    const check = (JSON.parse(doctor.stdout) as { checks: Array<{ id: string; status: string; hint?: string }> }).checks.find((c) => c.id === 'llama-server');
    expect(check?.status).toBe('fail');
    expect(check?.hint).not.toMatch(/npm run llama-server|scripts\//);
    expect(check?.hint).toContain('https://github.com/ggml-org/llama.cpp/releases');
  }, 300_000);
});
