// `svc auth enable` refuses what it cannot do before it changes anything.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvc, useTempGateways } from './helpers/gateway.js';
import { lanSkipReason, openLan } from './helpers/lan.js';

const { home: newHome, gateway: newGateway } = useTempGateways(afterEach);
const lanSkip = lanSkipReason();

describe('svc auth enable', () => {
  it('needs a password when nobody can type one, and writes nothing without it', () => {
    const home = newHome();
    const result = runSvc(['auth', 'enable', '--no-start'], { home: home.home });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/SVC_ADMIN_PASSWORD/);
    expect(existsSync(join(home.configRoot, 'Caddyfile'))).toBe(false);
    expect(existsSync(join(home.configRoot, 'api.env'))).toBe(false);
  });

  it('says how to install caddy when it is missing and the proxy should start', () => {
    const home = newHome();
    const result = runSvc(['auth', 'enable'], { home: home.home, env: { SVC_ADMIN_PASSWORD: 'long-enough-password', SVC_CADDY: '/nonexistent/caddy' } });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/caddy is not installed.*apt-get install caddy.*--no-start/);
    expect(existsSync(join(home.configRoot, 'api.env'))).toBe(false);
  });

  it('refuses a host name that is not one', () => {
    const home = newHome();
    const result = runSvc(['auth', 'enable', '--no-start', '--hostname', 'bad host/x'], { home: home.home, env: { SVC_ADMIN_PASSWORD: 'long-enough-password' } });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/not a host name/);
  });

  it('points the proxy at the port of the gateway serving this home, without SVC_PORT', async () => {
    const home = newHome();
    const gateway = await newGateway(home);
    const result = runSvc(['auth', 'enable', '--no-start'], { home: home.home, env: { SVC_ADMIN_PASSWORD: 'long-enough-password' } });
    expect(result.status, result.stderr).toBe(0);
    const caddyfile = readFileSync(join(home.configRoot, 'Caddyfile'), 'utf8');
    expect(caddyfile).toContain(`127.0.0.1:${gateway.port}`);
    expect(caddyfile).not.toContain('127.0.0.1:8080');
  });

  it('reports the mode, the files and the token count', () => {
    const home = newHome();
    expect(runSvc(['auth', 'enable', '--no-start', '--hostname', 'box.lan'], { home: home.home, env: { SVC_ADMIN_PASSWORD: 'long-enough-password' } }).status).toBe(0);
    const status = runSvc(['auth', 'status', '--json'], { home: home.home, env: { SVC_PORT: '1' } });
    expect(status.status, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout);
    expect(parsed).toMatchObject({ enabled: true, hostname: 'box.lan', tokens: 0, gateway: { reachable: false } });
    expect(parsed.root_certificate.path).toContain(join('var/lib/svc/caddy/pki/authorities/local/root.crt'));
  });
});

describe.skipIf(lanSkip)(`SVC_HOST in api.env ${lanSkip ?? ''}`, () => {
  it('is the bind address of svc serve, and auth enable makes it loopback', async () => {
    // A client on another host: a network namespace of this test's own.
    const lan = await openLan();
    try {
      const home = newHome({ 'api.env': 'SVC_HOST=0.0.0.0\n' });
      const open = await newGateway(home);
      expect((await lan.request(`${lan.url(open.port)}/api/status`)).status).toBe(200);
      const enabled = runSvc(['auth', 'enable', '--no-start'], { home: home.home, env: { SVC_PORT: String(open.port), SVC_ADMIN_PASSWORD: 'long-enough-password' } });
      expect(enabled.stdout).toMatch(/restart svc: it listens on 0\.0\.0\.0/);
      await open.stop();
      const closed = await newGateway(home);
      expect((await fetch(`${closed.url}/api/status`)).status).toBe(200);
      await expect(lan.request(`${lan.url(closed.port)}/api/status`)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      lan.close();
    }
  });
});
