// pi for real (docs/agents.md): `svc agent install pi` with the npm CLI from the npm registry
// into a temporary home, wired to a real gateway whose chat slot is the built-in engine on the
// tiny model; `svc agent run pi -- -p` prints the model's answer, the request is an activity
// row attributed to pi; models.json gives each slot the context one request really gets, and a
// run whose requests the gateway refused (pi's prompt does not fit) says why and exits 1;
// upgrade --to an older version and back; uninstall leaves nothing.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, SVC_BIN, startGateway, svcEnv, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

const OLDER = '0.72.1';
let home: TempHome;
let gw: Gateway;

/** `svc <args>` with a time limit fit for an npm install (the helpers' is a minute). */
function svc(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env: svcEnv(home.home, { SVC_API_URL: gw.url, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  // pi's system prompt and tool definitions are long: a context the tiny model's prompt fits in.
  // "small" splits 4096 among 4 workers: a request gets 1024, which pi's prompt does not fit.
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 16384 }, { name: 'small', provider: 'builtin', contextSize: 4096, extra: 'workers = 4\n' }]);
  gw = await startGateway(home.home);
  // Served now, so the install wires it (pi's models are the ones /v1/models lists).
  const loaded = await api(gw.url, '/api/slots/small/load', { method: 'POST' });
  expect(loaded.status, loaded.text).toBe(200);
}, 120_000);

afterAll(async () => {
  await gw?.stop();
  rmSync(home.home, { recursive: true, force: true });
}, 120_000);

const installDir = () => join(home.stateRoot, 'agents', 'pi');

describe('pi, installed from npm and wired to the gateway', () => {
  it('installs with the npm CLI into <state>/agents/pi and writes its wiring', async () => {
    const installed = await svc(['agent', 'install', 'pi']);
    expect(installed.status, installed.stderr + installed.stdout).toBe(0);
    expect(installed.stdout).toContain('npm:');
    expect(installed.stdout).toMatch(/export PATH=".*agents\/pi\/bin:\$PATH"/);
    const pkg = JSON.parse(readFileSync(join(installDir(), 'node_modules/@mariozechner/pi-coding-agent/package.json'), 'utf8')) as { version: string };
    const models = JSON.parse(readFileSync(join(installDir(), 'config/models.json'), 'utf8'));
    expect(models.providers.svc).toMatchObject({ api: 'openai-completions', baseUrl: `${gw.url}/v1`, headers: { 'X-Svc-Agent': 'pi' }, compat: { supportsDeveloperRole: false } });
    expect(models.providers.svc.models.map((m: { id: string }) => m.id)).toContain('chat');
    const windows = Object.fromEntries(models.providers.svc.models.map((m: { id: string; contextWindow: number }) => [m.id, m.contextWindow]));
    expect(windows).toMatchObject({ chat: 16384, small: 1024 });
    expect(statSync(join(installDir(), 'config/models.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(installDir(), 'config/skills/svc/SKILL.md'), 'utf8')).toMatch(/^---\nname: svc\n/);
    const file = readFileSync(join(home.configRoot, 'agents/pi.toml'), 'utf8');
    expect(file).toContain('name = "pi"');
    const view = (await api(gw.url, '/api/agents/pi')).json;
    expect(view).toMatchObject({ name: 'pi', kind: 'cli', status: 'installed', version: pkg.version });
    expect(view.job).toMatchObject({ action: 'install', state: 'done' });
    const list = (await api(gw.url, '/api/agents')).json;
    expect(list.agents.map((a: { name: string }) => a.name)).toEqual(['pi']);
  }, 600_000);

  it('runs pi -p against the gateway: it answers with the model\'s text, and the request is pi\'s activity', async () => {
    const ran = await svc(['agent', 'run', 'pi', '--', '-p', 'hello'], { PI_OFFLINE: '1' });
    expect(ran.status, ran.stderr + ran.stdout).toBe(0);
    expect(ran.stdout.trim().length).toBeGreaterThan(0);
    const activity = (await api(gw.url, '/api/agents/pi/activity?limit=10')).json;
    expect(activity.agent).toBe('pi');
    expect(activity.count).toBeGreaterThan(0);
    expect(activity.events[0]).toMatchObject({ tool: 'POST /v1/chat/completions', args: { model: 'chat' }, gated: false, outcome: 'ok', client_id: 'agent:pi' });
  }, 300_000);

  it("says why a run's requests failed and exits 1, when pi itself says nothing", async () => {
    const ran = await svc(['agent', 'run', 'pi', '--', '--model', 'svc/small', '-p', 'hello'], { PI_OFFLINE: '1' });
    expect(ran.status, ran.stderr + ran.stdout).toBe(1);
    expect(ran.stderr).toContain("svc: pi's last request to the gateway (POST /v1/chat/completions) failed: request.context_exceeded:");
    const last = (await api(gw.url, '/api/agents/pi/activity?limit=1')).json.events[0];
    expect(last).toMatchObject({ tool: 'POST /v1/chat/completions', args: { model: 'small' }, outcome: 'error', error: { code: 'request.context_exceeded' } });
  }, 300_000);

  it('upgrades --to an older version and back', async () => {
    const down = await svc(['agent', 'upgrade', 'pi', '--to', OLDER]);
    expect(down.status, down.stderr + down.stdout).toBe(0);
    expect((await api(gw.url, '/api/agents/pi')).json).toMatchObject({ status: 'installed', version: OLDER });
    expect(readFileSync(join(home.configRoot, 'agents/pi.toml'), 'utf8')).toContain(`version = "${OLDER}"`);
    const up = await svc(['agent', 'upgrade', 'pi']);
    expect(up.status, up.stderr + up.stdout).toBe(0);
    const view = (await api(gw.url, '/api/agents/pi')).json;
    expect(view.status).toBe('installed');
    expect(view.version).not.toBe(OLDER);
  }, 600_000);

  it('uninstall keeps the sessions; --purge leaves nothing of it', async () => {
    const kept = await svc(['agent', 'uninstall', 'pi']);
    expect(kept.status, kept.stderr).toBe(0);
    expect(readdirSync(installDir())).toEqual(['data']);
    expect(existsSync(join(home.configRoot, 'agents/pi.toml'))).toBe(false);
    expect((await api(gw.url, '/api/agents/pi')).json.status).toBe('not_installed');
    const again = await svc(['agent', 'install', 'pi']);
    expect(again.status, again.stderr + again.stdout).toBe(0);
    const purged = await svc(['agent', 'uninstall', 'pi', '--purge']);
    expect(purged.status, purged.stderr).toBe(0);
    expect(existsSync(installDir())).toBe(false);
    expect(existsSync(join(home.configRoot, 'agents/pi.toml'))).toBe(false);
    expect((await api(gw.url, '/api/agents')).json.agents).toEqual([]);
  }, 600_000);
});
