// svc uninstall on a real home with a running gateway and engine, checked file by file:
// the default stops both and keeps every config and state file; --purge asks first (the
// hostname or DELETE), --purge --force removes both roots; --keep-data keeps the models and
// the activity log and nothing else.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { api, runSvc, runSvcAsync, startGateway, tempHome, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots, processAlive } from './helpers/llama.js';

/** Every file under a root, relative, with its bytes (the lock and slot state excepted: a stop rewrites them). */
function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(root, path)] = readFileSync(path).toString('base64');
    }
  };
  walk(root);
  return out;
}

const volatile = (files: Record<string, string>) => Object.fromEntries(Object.entries(files).filter(([k]) => !/^(svc\.lock|slots\/[^/]+\/(state\.json|engine\.log.*)|activity\.db.*)$/.test(k)));

async function runningHome(): Promise<{ home: TempHome; enginePid: number; gatewayPid: number }> {
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
  const gw = await startGateway(home.home);
  const view = (await api(gw.url, '/api/slots/chat/load', { method: 'POST' })).json;
  expect(view.state).toBe('ready');
  return { home, enginePid: view.pid, gatewayPid: gw.process.pid! };
}

describe('svc uninstall', () => {
  it('by default stops the gateway and its engine and keeps every config and state file', async () => {
    const { home, enginePid, gatewayPid } = await runningHome();
    const config = filesOf(home.configRoot);
    const state = volatile(filesOf(home.stateRoot));
    const result = await runSvcAsync(['uninstall'], { home: home.home });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`done    stop the gateway: stopped the gateway (pid ${gatewayPid})`);
    expect(result.stdout).toMatch(/skipped remove svc\.service: not installed/);
    expect(result.stdout).toContain('skipped keep config and state');
    expect(processAlive(gatewayPid)).toBe(false);
    expect(processAlive(enginePid)).toBe(false);
    expect(filesOf(home.configRoot)).toEqual(config);
    expect(volatile(filesOf(home.stateRoot))).toEqual(state);
    expect(Object.keys(state)).toEqual(expect.arrayContaining(['registry/registry.toml']));
  }, 60_000);

  it('--purge asks first; a wrong answer removes nothing; --purge --force removes both roots', async () => {
    const { home } = await runningHome();
    const refused = runSvc(['uninstall', '--purge'], { home: home.home, input: 'no\n' });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`Type the hostname (${hostname()}) or DELETE`);
    expect(refused.stderr).toContain('not confirmed; nothing was removed');
    expect(existsSync(join(home.configRoot, 'slots/chat.toml'))).toBe(true);
    const typed = runSvc(['uninstall', '--purge'], { home: home.home, input: 'DELETE\n' });
    expect(typed.status, typed.stdout + typed.stderr).toBe(0);
    expect(existsSync(home.configRoot)).toBe(false);
    expect(existsSync(home.stateRoot)).toBe(false);
    const again = await runSvcAsync(['uninstall', '--purge', '--force'], { home: home.home });
    expect(again.status).toBe(0);
    expect(again.stdout).toContain('does not exist');
  }, 60_000);

  it('--purge --keep-data --force keeps the models and the activity log, and nothing else', async () => {
    const { home } = await runningHome();
    const models = filesOf(join(home.home, 'models'));
    const storeModels = filesOf(join(home.stateRoot, 'models'));
    const result = await runSvcAsync(['uninstall', '--purge', '--keep-data', '--force'], { home: home.home });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(existsSync(home.configRoot)).toBe(false);
    expect(readdirSync(home.stateRoot).filter((n) => !n.startsWith('activity.db')).sort()).toEqual(['models']);
    expect(existsSync(join(home.stateRoot, 'activity.db'))).toBe(true);
    expect(filesOf(join(home.stateRoot, 'models'))).toEqual(storeModels);
    // The tiny model lives outside svc's roots (in the test home): never touched.
    expect(filesOf(join(home.home, 'models'))).toEqual(models);
  }, 60_000);

  // Run as root, uninstall must not follow a folder the svc user replaced with a symbolic
  // link (issue 22): here to a folder outside the home, with a file that must survive.
  describe('with a symbolic link the svc user put in place', () => {
    const outsideWithSentinel = () => {
      const outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
      writeFileSync(join(outside, 'sentinel'), 'not svc\'s');
      mkdirSync(join(outside, 'models'));
      return outside;
    };
    const gone = (path: string) => {
      try {
        lstatSync(path);
        return false;
      } catch {
        return true;
      }
    };

    it('--keep-data removes a link on the way to a kept store as a link, never what it points to', async () => {
      const home = tempHome();
      const outside = outsideWithSentinel();
      try {
        home.write('svc.toml', `[models]\nstore = "${join(home.stateRoot, 'data/models')}"\n`);
        mkdirSync(home.stateRoot, { recursive: true });
        symlinkSync(outside, join(home.stateRoot, 'data'));
        const result = await runSvcAsync(['uninstall', '--purge', '--keep-data', '--force'], { home: home.home });
        expect(result.status, result.stdout + result.stderr).toBe(0);
        expect(readdirSync(outside).sort()).toEqual(['models', 'sentinel']);
        expect(gone(join(home.stateRoot, 'data'))).toBe(true);
      } finally {
        rmSync(outside, { recursive: true, force: true });
        rmSync(home.home, { recursive: true, force: true });
      }
    }, 60_000);

    it('--keep-data removes a state root that is a link as a link', async () => {
      const home = tempHome({ 'svc.toml': '' });
      const outside = outsideWithSentinel();
      try {
        mkdirSync(join(home.stateRoot, '..'), { recursive: true });
        symlinkSync(outside, home.stateRoot);
        const result = await runSvcAsync(['uninstall', '--purge', '--keep-data', '--force'], { home: home.home });
        expect(result.status, result.stdout + result.stderr).toBe(0);
        expect(result.stdout).toContain(`removed the symbolic link ${home.stateRoot}; what it points to (${outside}) was not touched`);
        expect(readdirSync(outside).sort()).toEqual(['models', 'sentinel']);
        expect(gone(home.stateRoot)).toBe(true);
      } finally {
        rmSync(outside, { recursive: true, force: true });
        rmSync(home.home, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
