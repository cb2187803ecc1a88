// systemd units, for each unit svc installs (the gateway's, the auth proxy's, the mDNS
// announcer's): system units as root, user units otherwise; finding the programs they run.
// `svc setup`, `svc auth enable|disable`, `svc uninstall` and `svc doctor` all use it, from
// the CLI, without a gateway.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';

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

/** The target a unit is installed for: multi-user.target for a system unit, default.target for a user unit. */
export function unitWantedBy(): string {
  return asRoot() ? 'multi-user.target' : 'default.target';
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

/**
 * The end of every service unit svc installs for itself or an agent: stopped with SIGTERM
 * within 20 s, sandboxed (no new privileges, /usr and /etc read-only, a private /tmp, only
 * `writablePaths` writable), started with the system.
 */
export function serviceUnitTail(writablePaths: string): string[] {
  return ['KillSignal=SIGTERM', 'TimeoutStopSec=20', 'NoNewPrivileges=yes', 'ProtectSystem=full', `ReadWritePaths=${writablePaths}`, 'PrivateTmp=yes', '', '[Install]', 'WantedBy=multi-user.target', ''];
}
