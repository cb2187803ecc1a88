// How the CLI finds the gateway (docs/cli.md, "How the CLI finds the API"): a gateway on a
// random port in a fresh home is reached by `SVC_HOME=$H svc …` with neither SVC_API_URL nor
// SVC_PORT set, through the URL its instance lock records; `--verbose` says which URL and
// why; SVC_API_URL still wins; with no gateway the port `svc serve` would take is tried;
// `svc doctor` checks the port the gateway really serves.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, runSvcAsync, startGateway, tempHome, type Gateway, type TempHome } from './helpers/gateway.js';

let home: TempHome;
let gw: Gateway;
const homes: TempHome[] = [];
const newHome = () => {
  const made = tempHome();
  homes.push(made);
  return made;
};

beforeAll(async () => {
  home = newHome();
  gw = await startGateway(home.home);
}, 60_000);
afterAll(async () => {
  await gw?.stop();
  for (const made of homes) rmSync(made.home, { recursive: true, force: true });
});

const svc = (args: string[], env: Record<string, string> = {}) => runSvc(args, { home: home.home, env });

describe('the CLI finds the gateway serving its home', () => {
  it('svc status and svc slot list reach a gateway on a random port without SVC_API_URL or SVC_PORT', () => {
    expect(gw.port).not.toBe(8080);
    const status = svc(['status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain(`at http://127.0.0.1:${gw.port}`);
    const slots = svc(['slot', 'list']);
    expect(slots.status, slots.stderr).toBe(0);
    expect(slots.stderr).toBe('');
  });

  it('--verbose names the URL and its source, before or after the command', () => {
    for (const args of [['--verbose', 'status'], ['status', '--verbose']]) {
      const result = svc(args);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stderr).toContain(`svc: using the API at http://127.0.0.1:${gw.port}: the gateway serving this home (${home.home}, pid ${gw.process.pid}) recorded it in ${join(home.stateRoot, 'svc.lock')}`);
    }
    expect(svc(['status']).stderr).toBe('');
  });

  it('SVC_API_URL wins over the lock, and --verbose says so', () => {
    const result = svc(['--verbose', 'status'], { SVC_API_URL: 'http://127.0.0.1:1' });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('svc: using the API at http://127.0.0.1:1: SVC_API_URL is set');
    expect(result.stderr).toContain('cannot reach the svc API at http://127.0.0.1:1');
  });

  it('svc doctor checks the port the gateway serves, not 8080', async () => {
    const result = await runSvcAsync(['doctor', '--json'], { home: home.home });
    const checks = (JSON.parse(result.stdout) as { checks: Array<{ id: string; status: string; message: string }> }).checks;
    expect(checks.find((c) => c.id === `port:${gw.port}`)).toMatchObject({ status: 'ok', message: `${gw.port} (the API) is held by this home's gateway (pid ${gw.process.pid})` });
    expect(checks.some((c) => c.id === 'port:8080')).toBe(false);
  }, 60_000);
});

describe('with no gateway serving the home', () => {
  it('tries 127.0.0.1 on SVC_PORT, else api.env\'s SVC_PORT, else 8080, and says why', () => {
    const empty = newHome();
    const viaEnv = runSvc(['--verbose', 'status'], { home: empty.home, env: { SVC_PORT: '1' } });
    expect(viaEnv.status).toBe(3);
    expect(viaEnv.stderr).toContain(`svc: using the API at http://127.0.0.1:1: no gateway serves this home (${empty.home}); SVC_PORT is 1`);
    writeFileSync(empty.write('api.env', ''), 'SVC_PORT=2\n');
    const viaFile = runSvc(['--verbose', 'status'], { home: empty.home });
    expect(viaFile.stderr).toContain(`svc: using the API at http://127.0.0.1:2: no gateway serves this home (${empty.home}); SVC_PORT is 2 in ${join(empty.configRoot, 'api.env')}`);
    const none = newHome();
    const byDefault = runSvc(['--verbose', 'status'], { home: none.home });
    expect(byDefault.stderr).toContain('svc: using the API at http://127.0.0.1:8080: no gateway serves this home');
  });
});

describe('a gateway bound to every interface', () => {
  let wild: TempHome;
  let wildGw: Gateway;
  beforeAll(async () => {
    wild = newHome();
    wildGw = await startGateway(wild.home, { args: ['--host', '0.0.0.0'] });
  }, 60_000);
  afterAll(async () => {
    await wildGw?.stop();
  });

  it('is reached over loopback', () => {
    const result = runSvc(['--verbose', 'status'], { home: wild.home });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toContain(`svc: using the API at http://127.0.0.1:${wildGw.port}: the gateway serving this home`);
  });
});
