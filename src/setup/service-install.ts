// `svc setup` as root on a systemd host: a system user `svc` (created when missing) owns the
// config and state, and svc.service runs the gateway as that user at boot, from
// <prefix>/current (docs/updates.md), which setup points at this svc when there is none yet.
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { API_UNIT, renderApiUnit } from '../deploy/gateway-unit.js';
import { installUnit, systemdRunning } from '../deploy/systemd.js';
import type { SvcPaths } from '../config/paths.js';
import { currentLink, installPrefix, readCurrent, runningTree, switchCurrent, treeBin } from '../update/layout.js';

export const SERVICE_USER = 'svc';

export interface ServiceInstall {
  status: 'installed' | 'skipped';
  detail: string;
}

const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${(result.stderr || result.error?.message || '').trim()}`);
};

export async function installApiService(paths: SvcPaths, command: { node: string }): Promise<ServiceInstall> {
  if (process.getuid?.() !== 0) return { status: 'skipped', detail: 'not root: run svc serve yourself, or sudo svc setup to install svc.service' };
  if (!systemdRunning()) return { status: 'skipped', detail: 'systemd is not running on this host: run svc serve under your own supervisor (docs/service.md)' };
  if (spawnSync('id', ['-u', SERVICE_USER]).status !== 0) run('useradd', ['--system', '--home-dir', paths.stateRoot, '--shell', '/usr/sbin/nologin', SERVICE_USER]);
  run('chown', ['-R', `${SERVICE_USER}:${SERVICE_USER}`, paths.configRoot, paths.stateRoot]);
  // The unit starts <prefix>/current, so that `svc update` (which switches it) and the unit agree;
  // the first `current` is this svc, wherever it was installed.
  const prefix = installPrefix();
  if ((await readCurrent(prefix)) === null) {
    await mkdir(prefix, { recursive: true });
    await switchCurrent(prefix, runningTree());
  }
  const unit = await installUnit(API_UNIT, renderApiUnit({ node: command.node, bin: treeBin(currentLink(prefix)), paths, user: SERVICE_USER }));
  if (!unit.ok) throw new Error(`${API_UNIT} (${unit.path}) did not start: ${unit.output}`);
  return { status: 'installed', detail: `${unit.path} installed, enabled and started as user ${SERVICE_USER}` };
}
