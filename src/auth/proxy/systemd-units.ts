// Running the proxy: as a systemd unit where systemd runs (a user unit for a normal user),
// otherwise as a command the user runs. Caddy's own files (autosave, locks) go under svc's
// state root through XDG_*, so nothing lands outside svc's home.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir, networkInterfaces } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import type { SvcPaths } from '../../config/paths.js';
import { quoteWord as quote } from '../../lib/shell-words.js';

/** The gateway's own unit (deploy/svc.service). */
export const API_UNIT = 'svc.service';
export const PROXY_UNIT = 'svc-caddy.service';
export const MDNS_UNIT = 'svc-mdns.service';

/** A program on PATH (or the given absolute path) that can be run. */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = name.includes('/') ? [name] : (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export interface ProxyRun {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

export function proxyRun(paths: SvcPaths, caddy: string): ProxyRun {
  return {
    argv: [caddy, 'run', '--config', paths.caddyfile, '--adapter', 'caddyfile'],
    env: { XDG_CONFIG_HOME: join(paths.caddyDataDir, 'config'), XDG_DATA_HOME: join(paths.caddyDataDir, 'data') },
  };
}

/** The proxy as one shell line. */
export function shellLine(run: ProxyRun): string {
  return [...Object.entries(run.env).map(([k, v]) => `${k}=${quote(v)}`), ...run.argv.map(quote)].join(' ');
}

export function systemdRunning(): boolean {
  return existsSync('/run/systemd/system') && findProgram('systemctl') !== undefined;
}

function asRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function unitDir(): string {
  return asRoot() ? '/etc/systemd/system' : join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'systemd/user');
}

function systemctl(...args: string[]): { ok: boolean; output: string } {
  const result = spawnSync('systemctl', [...(asRoot() ? [] : ['--user']), ...args], { encoding: 'utf8' });
  return { ok: result.status === 0, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

export function renderUnit(description: string, run: ProxyRun, extra: readonly string[] = []): string {
  return [
    '[Unit]',
    `Description=${description}`,
    'After=network-online.target',
    '',
    '[Service]',
    ...Object.entries(run.env).map(([k, v]) => `Environment=${k}=${v}`),
    `ExecStart=${run.argv.map(quote).join(' ')}`,
    'Restart=on-failure',
    ...extra,
    '',
    '[Install]',
    `WantedBy=${asRoot() ? 'multi-user.target' : 'default.target'}`,
    '',
  ].join('\n');
}

/** Where a unit file of this name is installed (system units as root, user units otherwise). */
export function unitPath(name: string): string {
  return join(unitDir(), name);
}

/** Install a unit and (re)start it now and at boot: a running proxy must read the new Caddyfile. */
export async function installUnit(name: string, text: string, dataDirs: readonly string[] = []): Promise<{ ok: boolean; output: string; path: string }> {
  const path = join(unitDir(), name);
  for (const dir of dataDirs) await mkdir(dir, { recursive: true });
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, text);
  const reload = systemctl('daemon-reload');
  if (!reload.ok) return { ...reload, path };
  const enable = systemctl('enable', name);
  return { ...(enable.ok ? systemctl('restart', name) : enable), path };
}

/** Stop a unit and keep it from starting at boot; its file stays for the next enable. */
export function stopUnit(name: string): { ok: boolean; output: string } {
  return systemctl('disable', '--now', name);
}

export function unitState(name: string): { installed: boolean; active: string } {
  const installed = existsSync(join(unitDir(), name));
  return { installed, active: installed && systemdRunning() ? systemctl('is-active', name).output || 'unknown' : 'unknown' };
}

/** This host's first LAN IPv4 address, for the hosts-file line or the mDNS record. */
export function lanAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const address of list ?? []) if (address.family === 'IPv4' && !address.internal) return address.address;
  }
  return undefined;
}
