// The hand-over of an update job to its worker (worker.ts): what the worker
// needs to restart this gateway and to put everything back, and the detached process itself.
// It must survive the gateway it restarts: under svc.service that means its own transient
// unit, since a child in the service's cgroup would die with the restart it asks for.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SvcPaths } from '../config/paths.js';
import { SvcError } from '../protocol/errors.js';
import type { UpdateHandover, UpdateJob } from '../protocol/updates.js';
import { PACKAGE_NAME } from '../lib/version.js';
import { jobLog } from './jobs.js';
import { installPrefix, readCurrent, readPrevious, runningTree } from './layout.js';

const HEALTH_TIMEOUT_S = 60;

export async function prepareHandover(paths: SvcPaths, listening: { host: string; port: number }): Promise<{ handover: UpdateHandover; restart_mode: 'self' | 'systemd' }> {
  const prefix = installPrefix();
  return {
    restart_mode: inSystemdService() ? 'systemd' : 'self',
    handover: {
      gateway: { pid: process.pid, host: listening.host, port: listening.port, exec_argv: process.execArgv },
      prefix, current_before: await readCurrent(prefix), previous_before: await readPrevious(paths),
      health_timeout_s: Number(process.env.SVC_UPDATE_HEALTH_TIMEOUT_S) || HEALTH_TIMEOUT_S,
      log_file: join(paths.stateRoot, 'gateway.log'),
    },
  };
}

/** Start the worker detached; `onExit` runs when it ends (to catch one that never took the job). */
export function spawnWorker(paths: SvcPaths, job: UpdateJob, onExit: () => void): void {
  const worker = join(runningTree(), 'dist/update/worker.js');
  const log = openSync(jobLog(paths, job.id), 'a');
  const [command, args] = job.restart_mode === 'systemd'
    ? ['systemd-run', ['--collect', '--quiet', `--unit=svc-update-${job.id}`, ...forwardedEnv(), process.execPath, worker, job.id]]
    : [process.execPath, [worker, job.id]];
  const child = spawn(command as string, args as string[], { detached: true, stdio: ['ignore', log, log], env: process.env });
  child.once('error', () => undefined);
  child.once('exit', onExit);
  child.unref();
  const gateway = job.handover?.gateway;
  if (job.restart_mode === 'self' && gateway) process.stdout.write(`svc: ${job.kind} ${job.id}: this gateway stops now and svc ${job.to.version} starts in its place on ${gateway.host}:${gateway.port}, detached, its output in ${job.handover?.log_file}\n`);
}

/** Whether this process runs inside svc.service (its cgroup says so). */
function inSystemdService(): boolean {
  try {
    return /\/svc\.service$/m.test(readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Under svc.service the restart goes through systemd (a worker in its own transient unit, then
 * systemctl restart), which needs root; the unit that setup installs runs as the svc user.
 */
export function refuseUnderUnprivilegedService(): void {
  if (inSystemdService() && process.getuid?.() !== 0) {
    throw new SvcError('update.unsupported', 'svc runs as svc.service under an unprivileged user, which cannot restart its own unit; update by hand: sudo npm install -g <package>@<version>, then sudo systemctl restart svc (docs/updates.md)', { package: PACKAGE_NAME });
  }
}

/** systemd-run starts with an empty environment: svc's own settings and the npm registry go with it. */
function forwardedEnv(): string[] {
  return Object.entries(process.env)
    .filter(([key]) => key.startsWith('SVC_') || key.startsWith('npm_config_') || ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME'].includes(key))
    // The name alone: systemd-run takes the value from its own environment, so no secret shows in `ps`.
    .map(([key]) => `--setenv=${key}`);
}
