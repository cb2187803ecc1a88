// The systemd units: the ones in deploy/ (with the drop-in directory), the API unit `svc
// setup` renders and the proxy unit `svc auth enable` renders all pass `systemd-analyze
// verify` with nothing to say (an unknown key or a bad assignment is only a warning there,
// so the test also wants its output empty).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxyRun, renderUnit } from '../src/auth/proxy/systemd-units.js';
import { renderApiUnit } from '../src/deploy/gateway-unit.js';
import { findProgram } from '../src/deploy/systemd.js';
import { REPO_ROOT, SVC_BIN, tempHome } from './helpers/gateway.js';

const analyze = findProgram('systemd-analyze');
if (!analyze && process.env.CI === 'true') throw new Error('systemd-analyze is not installed; CI must install systemd (.ci/run)');

function verify(dir: string, units: string[]): { status: number | null; output: string } {
  const result = spawnSync(analyze!, ['verify', ...units.map((u) => join(dir, u))], { encoding: 'utf8', env: { ...process.env, SYSTEMD_UNIT_PATH: `${dir}:` } });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe.skipIf(!analyze)('systemd units', () => {
  it('deploy/: svc.service with its drop-in directory, and svc-caddy.service', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-units-'));
    cpSync(join(REPO_ROOT, 'deploy'), dir, { recursive: true });
    expect(verify(dir, ['svc.service', 'svc-caddy.service'])).toEqual({ status: 0, output: '' });
    // The check can fail: a bad drop-in line is reported.
    writeFileSync(join(dir, 'svc.service.d/20-bad.conf'), '[Service]\nNotAKey=1\n');
    expect(verify(dir, ['svc.service']).output).toContain("Unknown key 'NotAKey'");
  });

  it('the API unit svc setup installs and the proxy unit svc auth enable installs', () => {
    const home = tempHome();
    const dir = mkdtempSync(join(tmpdir(), 'svc-units-'));
    const paths = { configRoot: home.configRoot, stateRoot: home.stateRoot, apiEnv: join(home.configRoot, 'api.env') };
    writeFileSync(join(dir, 'svc.service'), renderApiUnit({ node: process.execPath, bin: SVC_BIN, paths, user: 'svc' }));
    const caddy = findProgram('caddy') ?? '/bin/true';
    writeFileSync(join(dir, 'svc-caddy.service'), renderUnit('svc reverse proxy (Caddy)', proxyRun({ caddyfile: join(home.configRoot, 'Caddyfile'), caddyDataDir: join(home.stateRoot, 'caddy') } as never, caddy)));
    expect(verify(dir, ['svc.service', 'svc-caddy.service'])).toEqual({ status: 0, output: '' });
  });
});
