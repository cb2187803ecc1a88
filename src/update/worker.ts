// The second half of an update (or rollback) job, in its own detached process because it
// restarts the gateway that started it: switch <prefix>/current, record svc.previous, restart
// the gateway (systemctl under svc.service; otherwise stop it and start the new tree's
// `svc serve` on the same host and port, detached, its output in the job's gateway log),
// then wait for /api/status to answer with the new version. If it does not within the bound,
// or the new gateway exits, everything is put back as it was (current, svc.previous, the
// config a migration changed) and the previous version is started again: state rolled_back.
//
// Run as `node <tree>/dist/update/worker.js <job id>`, with the gateway's environment.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { openSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolvePaths, type SvcPaths } from '../config/paths.js';
import type { UpdateHandover, UpdateJob } from '../protocol/updates.js';
import { isAlive, sleep } from '../lib/process.js';
import { undoMigration } from './install.js';
import { advance, readJob } from './jobs.js';
import { currentLink, pruneVersions, switchCurrent, treeBin, writePrevious } from './layout.js';

const STOP_WAIT_MS = 30_000;
/** `svc serve`'s exit code when another svc serves the home (server/exit-codes.ts, EXIT_HOME_IN_USE). */
const HOME_IN_USE_EXIT = 7;

/** A running gateway this worker started (self mode), or the unit systemd restarts. */
interface Restarted {
  child: ChildProcess | null;
  exited: () => number | null | 'running';
}

export async function runUpdateWorker(paths: SvcPaths, id: string): Promise<UpdateJob> {
  const loaded = await readJob(paths, id);
  if (!loaded?.handover) throw new Error(`update job ${id} has nothing handed over`);
  let job = loaded;
  const h = loaded.handover;
  const step = async (state: UpdateJob['state'], message: string, patch: Partial<UpdateJob> = {}) => (job = await advance(paths, job, state, message, { owner_pid: process.pid, ...patch }));

  await step('switching', `switching ${currentLink(h.prefix)} to ${job.to.path}`);
  try {
    await writePrevious(paths, job.from);
    await switchCurrent(h.prefix, job.to.path);
  } catch (error) {
    // Nothing restarted yet: put the record back and leave the gateway as it runs.
    await writePrevious(paths, h.previous_before).catch(() => undefined);
    await switchCurrent(h.prefix, h.current_before).catch(() => undefined);
    await undoMigration(job.migration, paths.svcToml).catch(() => undefined);
    return step('failed', `could not switch ${currentLink(h.prefix)}: ${(error as Error).message}`, { restarted: false, error: { code: 'update.install_failed', message: `could not switch ${currentLink(h.prefix)} to ${job.to.path}: ${(error as Error).message}; svc ${job.from.version} still runs` } });
  }
  await step('restarting', job.restart_mode === 'systemd' ? 'systemctl restart svc.service' : `stopping the gateway (pid ${h.gateway.pid}) and starting ${job.to.version}`);
  let outcome: string | null;
  try {
    const started = await restart(job, h, treeBin(currentLink(h.prefix)));
    await step('health_check', `waiting up to ${h.health_timeout_s} s for ${job.to.version} to answer on ${statusUrl(h)}`);
    outcome = await healthy(h, job.to.version, started);
  } catch (error) {
    outcome = `the restart failed: ${(error as Error).message}`;
  }
  if (outcome === null) {
    const removed = await pruneVersions(h.prefix, [job.to.path, job.from.path]).catch(() => []);
    return step('applied', `svc ${job.to.version} runs (was ${job.from.version})${removed.length ? `; removed ${removed.length} older version(s)` : ''}`, { restarted: true });
  }
  return rollBack(paths, job, h, outcome, step);
}

async function rollBack(paths: SvcPaths, job: UpdateJob, h: UpdateHandover, reason: string, step: (state: UpdateJob['state'], message: string, patch?: Partial<UpdateJob>) => Promise<UpdateJob>): Promise<UpdateJob> {
  // The new gateway is stopped by the restart below (SIGTERM, so it stops its engines), or by systemd.
  await step('rolling_back', `${reason}; switching back to ${job.from.version}`);
  await switchCurrent(h.prefix, h.current_before);
  await writePrevious(paths, h.previous_before);
  await undoMigration(job.migration, paths.svcToml);
  let again: string | null;
  try {
    again = await healthy(h, job.from.version, await restart(job, h, treeBin(job.from.path)));
  } catch (error) {
    again = (error as Error).message;
  }
  if (again === null) {
    return step('rolled_back', `switched back: svc ${job.from.version} runs again (${reason})`, { restarted: false, error: { code: 'update.health_failed', message: reason } });
  }
  return step('failed', `switching back did not bring ${job.from.version} up either: ${again}`, {
    restarted: false,
    error: { code: 'update.rollback_failed', message: `${reason}; then ${job.from.version} did not come back: ${again}. Start it by hand: ${process.execPath} ${treeBin(job.from.path)} serve` },
  });
}


/** Restart the gateway on `bin`: through systemd when it runs as svc.service, else by stopping it and starting bin itself. */
async function restart(job: UpdateJob, h: UpdateHandover, bin: string): Promise<Restarted> {
  if (job.restart_mode === 'systemd') {
    const result = spawnSync('systemctl', ['restart', 'svc.service'], { encoding: 'utf8', timeout: 120_000 });
    if (result.status !== 0) throw new Error(`systemctl restart svc.service: ${(result.stderr || result.error?.message || '').trim()}`);
    return { child: null, exited: () => 'running' };
  }
  await stopPid(h.gateway.pid);
  const log = openSync(h.log_file, 'a');
  const child = spawn(process.execPath, [...h.gateway.exec_argv, bin, 'serve', '--host', h.gateway.host, '--port', String(h.gateway.port)], { detached: true, stdio: ['ignore', log, log], env: process.env });
  let code: number | null | 'running' = 'running';
  child.once('exit', (c, signal) => (code = c ?? (signal ? 128 : null)));
  child.unref();
  // The next restart (a rollback) stops this one by pid.
  h.gateway.pid = child.pid ?? -1;
  return { child, exited: () => code };
}

async function stopPid(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < STOP_WAIT_MS && isAlive(pid); waited += 100) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(100);
}

const statusUrl = (h: UpdateHandover) => {
  const host = h.gateway.host === '0.0.0.0' ? '127.0.0.1' : h.gateway.host === '::' ? '[::1]' : h.gateway.host.includes(':') ? `[${h.gateway.host}]` : h.gateway.host;
  return `http://${host}:${h.gateway.port}/api/status`;
};

/** null once /api/status answers with the version; otherwise why not (it exited, it timed out). */
async function healthy(h: UpdateHandover, version: string, started: Restarted): Promise<string | null> {
  const deadline = Date.now() + h.health_timeout_s * 1000;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    const code = started.exited();
    // 7: another svc took the home first (a supervisor restarting what it runs): that one is checked instead.
    if (code !== 'running' && code !== HOME_IN_USE_EXIT) return `svc ${version} exited with code ${code} before it answered (its output: ${h.log_file})`;
    try {
      const res = await fetch(statusUrl(h), { signal: AbortSignal.timeout(2_000) });
      const body = (await res.json()) as { version?: string };
      if (res.ok && body.version === version) return null;
      last = res.ok ? `it answers as version ${body.version}` : `/api/status answered ${res.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await sleep(250);
  }
  return `svc ${version} was not healthy within ${h.health_timeout_s} s (${last})`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  const id = process.argv[2] ?? '';
  const paths = resolvePaths();
  runUpdateWorker(paths, id).then(
    (job) => process.stdout.write(`update ${id}: ${job.state}: ${job.message}\n`),
    async (error: unknown) => {
      process.stderr.write(`update ${id}: ${(error as Error).stack ?? String(error)}\n`);
      const job = await readJob(paths, id);
      if (job) await advance(paths, job, 'failed', `the update worker failed: ${(error as Error).message}`, { owner_pid: process.pid, error: { code: 'update.interrupted', message: (error as Error).message }, restarted: false });
      process.exitCode = 1;
    },
  );
}
