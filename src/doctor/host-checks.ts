// The host-level checks of `svc doctor`: the service unit, the auth proxy (in auth mode),
// the clock and the time zone.
import { readFile } from 'node:fs/promises';
import type { ResolvedConfig } from '../config/load.js';
import type { SvcPaths } from '../config/paths.js';
import { PROXY_UNIT, proxyRun } from '../auth/proxy/systemd-units.js';
import { API_UNIT } from '../deploy/gateway-unit.js';
import { findProgram, systemdRunning, unitState } from '../deploy/systemd.js';
import { run } from './run.js';
import type { CheckResult } from './types.js';
import { portOwner } from './port-owner.js';

export function serviceCheck(): CheckResult {
  const unit = unitState(API_UNIT);
  if (!unit.installed) return { id: 'service', status: 'warn', message: `${API_UNIT} is not installed (svc runs in the foreground)`, hint: 'install it to start svc at boot: docs/service.md' };
  if (!systemdRunning()) return { id: 'service', status: 'warn', message: `${API_UNIT} is installed, but systemd is not running here` };
  return unit.active === 'active' ? { id: 'service', status: 'ok', message: `${API_UNIT} is installed and active` } : { id: 'service', status: 'fail', message: `${API_UNIT} is installed but ${unit.active}`, hint: `journalctl -u ${API_UNIT} says why; systemctl restart ${API_UNIT}` };
}

/** In auth mode: Caddy is there, the Caddyfile validates, and the proxy listens. */
export async function proxyCheck(paths: SvcPaths, config: ResolvedConfig | undefined): Promise<CheckResult> {
  if (!config?.env.authEnabled) return { id: 'proxy', status: 'ok', message: 'auth mode is off: no proxy needed' };
  const caddy = findProgram('caddy');
  if (!caddy) return { id: 'proxy', status: 'fail', message: 'auth mode is on, but caddy is not installed', hint: 'apt-get install caddy, then svc auth enable' };
  const spec = proxyRun(paths, caddy);
  const validate = await run('env', [...Object.entries(spec.env).map(([k, v]) => `${k}=${v}`), caddy, 'validate', '--config', paths.caddyfile, '--adapter', 'caddyfile'], 15_000);
  if (validate.code !== 0) return { id: 'proxy', status: 'fail', message: `${paths.caddyfile} does not validate: ${validate.stderr.trim().split('\n').at(-1) ?? ''}`, hint: 'svc auth enable writes it again' };
  // `svc auth enable --https-port` writes a global https_port; 443 otherwise.
  const port = Number(/^\s*https_port\s+(\d+)/m.exec(await readFile(paths.caddyfile, 'utf8').catch(() => ''))?.[1] ?? 443);
  const listening = (await portOwner(port)).listening;
  const unit = unitState(PROXY_UNIT);
  if (!listening) return { id: 'proxy', status: 'fail', message: `${paths.caddyfile} is valid, but nothing listens on ${port} (${PROXY_UNIT}: ${unit.installed ? unit.active : 'not installed'})`, hint: 'svc auth enable starts it' };
  return { id: 'proxy', status: 'ok', message: `${paths.caddyfile} is valid and the proxy listens on ${port}` };
}

/** The clock is plausible and synchronised (when systemd says), and the time zone is shown. */
export async function clockCheck(now = new Date()): Promise<CheckResult> {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const shown = `${now.toISOString()} (time zone ${zone})`;
  // Certificates (the proxy's TLS) and tokens' timestamps are wrong with a clock in the past.
  if (now.getUTCFullYear() < 2025) return { id: 'clock', status: 'fail', message: `the clock says ${shown}`, hint: 'set the time (timedatectl set-ntp true)' };
  if (!systemdRunning() || !findProgram('timedatectl')) return { id: 'clock', status: 'ok', message: `${shown}; synchronisation not known (no systemd)` };
  const sync = (await run('timedatectl', ['show', '-p', 'NTPSynchronized', '--value'], 5_000)).stdout.trim();
  return sync === 'yes' ? { id: 'clock', status: 'ok', message: `${shown}, synchronised` } : { id: 'clock', status: 'warn', message: `${shown}, not synchronised`, hint: 'timedatectl set-ntp true' };
}
