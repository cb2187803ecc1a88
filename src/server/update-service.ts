// Update and rollback jobs, the gateway's half (docs/updates.md). The gateway resolves the
// version, then in the background downloads and verifies it, installs it into its version
// directory, runs its config migrations (keeping backups) and checks it reads this config,
// all while serving. Then it hands the job to a detached worker (src/setup/update-worker.ts)
// that switches `current`, restarts the gateway and health-checks the new one, switching
// back by itself when it is not healthy. A gateway that starts while a worker holds a job
// watches the job file and publishes how it ended.
import { spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../protocol/errors.js';
import { CHANNEL_TAG, HANDED_OVER_STATES, type InstalledTree, type UpdateJob, type UpdateJobState, type UpdateStatePayload } from '../protocol/updates.js';
import { PACKAGE_NAME } from '../protocol/version.js';
import { packageInfo, registryUrl } from '../setup/npm-registry.js';
import { compareVersions } from '../setup/semver.js';
import { installVersion, runLogged, versionDist, type VersionDist } from '../setup/update-install.js';
import { activeJob, advance, isTerminal, jobLog, listJobs, newJob, pruneJobs, readJob, writeJob } from '../setup/update-jobs.js';
import { installedVersions, installPrefix, readCurrent, readPrevious, runningTree, treeBin, treeVersion, versionDir } from '../setup/update-layout.js';
import { isAlive } from '../slots/process.js';
import type { SvcPaths } from '../config/paths.js';
import type { ResolvedConfig } from '../config/load.js';
import type { EventBus } from '../events/bus.js';
import type { ActivityInput } from '../activity/store.js';

/** What the service needs of the server context (a narrow view: the context constructs it). */
export interface UpdateHost {
  readonly version: string;
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  readonly listening: { host: string; port: number };
  readonly events: EventBus;
  record(entry: ActivityInput): void;
}

const HEALTH_TIMEOUT_S = 60;
const WATCH_STEP_MS = 500;

export class UpdateService {
  constructor(private readonly ctx: UpdateHost) {}

  /** Start an update to `version`, or to the channel's newest when it is newer than this one. */
  async apply(version: string | undefined, actor: string): Promise<UpdateJob> {
    await this.refuseWhileBusy();
    refuseUnderUnprivilegedService();
    const registry = registryUrl();
    const channel = this.ctx.config.svc.telemetry.channel;
    let target = version;
    if (target === undefined) {
      const latest = (await packageInfo(registry, PACKAGE_NAME)).distTags[CHANNEL_TAG[channel]];
      if (!latest || compareVersions(latest, this.ctx.version) <= 0) throw new SvcError('update.up_to_date', `svc ${this.ctx.version} is up to date on the ${channel} channel (${latest ? `it offers ${latest}` : 'it offers no version yet'})`, { current: this.ctx.version, channel, latest: latest ?? null });
      target = latest;
    }
    if (target === this.ctx.version) throw new SvcError('update.up_to_date', `svc ${target} is the version that runs`, { current: target });
    const dist = await versionDist(registry, PACKAGE_NAME, target);
    const job = newJob('update', channel, this.running(), { version: target, path: versionDir(installPrefix(), target) });
    await this.begin(job, actor);
    void this.runUpdate(job, dist);
    return job;
  }

  /** Switch back to the tree svc.previous records. */
  async rollback(actor: string): Promise<UpdateJob> {
    await this.refuseWhileBusy();
    refuseUnderUnprivilegedService();
    const previous = await readPrevious(this.ctx.paths);
    const version = previous && existsSync(treeBin(previous.path)) ? await treeVersion(previous.path) : null;
    if (!previous || !version) throw new SvcError('update.no_previous', previous ? `the previous tree ${previous.path} is gone; there is nothing to roll back to` : 'no update has run here: svc.previous records no tree to roll back to', { previous });
    const job = newJob('rollback', this.ctx.config.svc.telemetry.channel, this.running(), { version, path: previous.path });
    await this.begin(job, actor);
    void this.run(job, async (current) => {
      current = await this.step(current, 'migrating', `checking that ${version} reads this configuration`);
      await this.checkConfig(current, previous.path, false);
      return current;
    });
    return job;
  }

  async status(id: string): Promise<UpdateJob> {
    const job = await readJob(this.ctx.paths, id);
    if (!job) throw new SvcError('update.job_not_found', `no update job ${id}`, { id });
    return job;
  }

  async state(): Promise<UpdateStatePayload> {
    const prefix = installPrefix();
    return {
      version: this.ctx.version, running_tree: runningTree(), prefix, current: await readCurrent(prefix),
      previous: await readPrevious(this.ctx.paths), installed_versions: await installedVersions(prefix), active_job: await activeJob(this.ctx.paths),
    };
  }

  /** At start-up: a job a worker still holds is watched to its end; one whose process is gone is marked failed. */
  async resume(): Promise<void> {
    await activeJob(this.ctx.paths);
    for (const job of await listJobs(this.ctx.paths)) {
      if (!isTerminal(job) && HANDED_OVER_STATES.has(job.state) && isAlive(job.owner_pid)) this.watch(job.id);
    }
  }

  private running(): InstalledTree {
    return { version: this.ctx.version, path: runningTree() };
  }

  private async refuseWhileBusy(): Promise<void> {
    const busy = await activeJob(this.ctx.paths);
    if (busy) throw new SvcError('update.in_progress', `update job ${busy.id} (${busy.kind} to ${busy.to.version}) is ${busy.state}; one job at a time`, { job: busy.id, state: busy.state });
  }

  private async begin(job: UpdateJob, actor: string): Promise<void> {
    await writeJob(this.ctx.paths, job);
    await pruneJobs(this.ctx.paths);
    this.ctx.events.publish({ type: 'update.started', source: 'gateway', message: `${job.kind} ${job.from.version} -> ${job.to.version} started (job ${job.id})`, data: this.eventData(job) });
    this.ctx.record({ action: `update.${job.kind === 'update' ? 'apply' : 'rollback'}`, target: job.to.version, actor, details: { job: job.id, from: job.from, to: job.to } });
  }

  private async runUpdate(job: UpdateJob, dist: VersionDist): Promise<void> {
    await this.run(job, async (current) => {
      const onStep = async (state: UpdateJobState, message: string) => void (current = await this.step(current, state, message));
      const installed = await installVersion({ prefix: installPrefix(), name: PACKAGE_NAME, version: job.to.version, dist, seedFrom: job.from.path, logFile: jobLog(this.ctx.paths, job.id), onStep });
      if (installed.reused) await onStep('installing', `${job.to.version} is installed already (${installed.tree}); reusing it`);
      current = await this.step(current, 'migrating', `running svc ${job.to.version}'s config migrations`);
      await this.checkConfig(current, installed.tree, true).then((migration) => (current = { ...current, migration }));
      await writeJob(this.ctx.paths, current);
      return current;
    });
  }

  /** Run the gateway's part of a job; on success hand it over, on failure end it failed. */
  private async run(job: UpdateJob, work: (job: UpdateJob) => Promise<UpdateJob>): Promise<void> {
    try {
      await this.handOver(await work(job));
    } catch (error) {
      const code = error instanceof SvcError ? error.code : 'update.install_failed';
      const message = (error as Error).message ?? String(error);
      const latest = (await this.status(job.id).catch(() => job));
      await this.end(await advance(this.ctx.paths, latest, 'failed', message, { error: { code, message }, restarted: false }));
    }
  }

  /**
   * The version's own `svc config migrate` (it keeps a backup), then its `svc config validate`:
   * a version that cannot read this config is never switched to.
   */
  private async checkConfig(job: UpdateJob, tree: string, migrate: boolean): Promise<UpdateJob['migration']> {
    const logFile = jobLog(this.ctx.paths, job.id);
    let migration: UpdateJob['migration'] = null;
    if (migrate) {
      const run = await runLogged(process.execPath, [treeBin(tree), 'config', 'migrate', '--json'], { logFile, timeoutMs: 60_000 });
      if (run.code !== 0) throw new SvcError('update.config_invalid', `svc ${job.to.version} cannot migrate this configuration; nothing was switched:\n${run.tail}`, { log: logFile });
      const report = JSON.parse(run.stdout) as { migrated?: boolean; from?: number; to?: number; backup?: string };
      migration = { migrated: report.migrated === true, from: report.from, to: report.to, backup: report.backup };
    }
    const check = await runLogged(process.execPath, [treeBin(tree), 'config', 'validate', '--json'], { logFile, timeoutMs: 60_000 });
    if (check.code !== 0) throw new SvcError('update.config_invalid', `svc ${job.to.version} does not accept this configuration; nothing was switched:\n${check.tail}`, { log: logFile, migration });
    return migration;
  }

  /** Give the job to a detached worker: it restarts this gateway, so it must not be this gateway's child in any way that dies with it. */
  private async handOver(job: UpdateJob): Promise<void> {
    const prefix = installPrefix();
    const restartMode = inSystemdService() ? 'systemd' : 'self';
    const handover = {
      gateway: { pid: process.pid, host: this.ctx.listening.host, port: this.ctx.listening.port, exec_argv: process.execArgv },
      prefix, current_before: await readCurrent(prefix), previous_before: await readPrevious(this.ctx.paths),
      health_timeout_s: Number(process.env.SVC_UPDATE_HEALTH_TIMEOUT_S) || HEALTH_TIMEOUT_S,
      log_file: join(this.ctx.paths.stateRoot, 'gateway.log'),
    };
    job = await this.step(job, job.state, `handing over to the update worker (restart: ${restartMode})`, { handover, restart_mode: restartMode });
    const worker = join(runningTree(), 'dist/setup/update-worker.js');
    const log = openSync(jobLog(this.ctx.paths, job.id), 'a');
    const [command, args] = restartMode === 'systemd'
      // Its own transient unit: a child in svc.service's cgroup would die with the restart it asks for.
      ? ['systemd-run', ['--collect', '--quiet', `--unit=svc-update-${job.id}`, ...forwardedEnv(), process.execPath, worker, job.id]]
      : [process.execPath, [worker, job.id]];
    const child = spawn(command as string, args as string[], { detached: true, stdio: ['ignore', log, log], env: process.env });
    child.once('error', () => undefined);
    child.once('exit', () => void this.failIfNotTaken(job.id));
    child.unref();
    if (restartMode === 'self') process.stdout.write(`svc: ${job.kind} ${job.id}: this gateway stops now and svc ${job.to.version} starts in its place on ${handover.gateway.host}:${handover.gateway.port}, detached, its output in ${handover.log_file}\n`);
    this.watch(job.id);
  }

  /** A worker that exited without taking the job (it could not start) leaves it failed, not stuck. */
  private async failIfNotTaken(id: string): Promise<void> {
    const job = await this.status(id).catch(() => null);
    if (job && !isTerminal(job) && !HANDED_OVER_STATES.has(job.state)) {
      await this.end(await advance(this.ctx.paths, job, 'failed', 'the update worker did not start', { error: { code: 'update.interrupted', message: `the update worker exited before it took the job (log: ${jobLog(this.ctx.paths, id)})` }, restarted: false }));
    }
  }

  /** Follow a job the worker writes, publishing each state it enters and how it ends. */
  private watch(id: string): void {
    let seen = '';
    const timer = setInterval(() => {
      void this.status(id).then(async (job) => {
        if (job.updated_at === seen) return;
        seen = job.updated_at;
        if (isTerminal(job)) {
          clearInterval(timer);
          return this.end(job);
        }
        this.progress(job);
      }, () => clearInterval(timer));
    }, WATCH_STEP_MS);
    timer.unref();
  }

  private async step(job: UpdateJob, state: UpdateJobState, message: string, patch: Partial<UpdateJob> = {}): Promise<UpdateJob> {
    const next = await advance(this.ctx.paths, job, state, message, patch);
    this.progress(next);
    return next;
  }

  private progress(job: UpdateJob): void {
    this.ctx.events.publish({ type: 'update.progress', source: 'gateway', message: `${job.kind} to ${job.to.version}: ${job.state}: ${job.message}`, data: { ...this.eventData(job), state: job.state } });
  }

  private async end(job: UpdateJob): Promise<void> {
    const data = this.eventData(job);
    if (job.state === 'applied') this.ctx.events.publish({ type: 'update.applied', source: 'gateway', message: job.message, data });
    else if (job.state === 'rolled_back') this.ctx.events.publish({ type: 'update.rolled_back', source: 'gateway', severity: 'warn', message: job.message, data: { ...data, reason: job.error?.message ?? job.message } });
    else this.ctx.events.publish({ type: 'update.failed', source: 'gateway', severity: 'error', message: job.message, data: { ...data, code: job.error?.code ?? 'update.interrupted' } });
    this.ctx.record({ action: `update.${job.state}`, kind: 'event', target: job.to.version, outcome: job.state === 'applied' ? 'ok' : 'error', message: job.message, details: { job: job.id, from: job.from.version, to: job.to.version, error: job.error } });
  }

  private eventData(job: UpdateJob) {
    return { job: job.id, kind: job.kind, from: job.from.version, to: job.to.version };
  }
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
function refuseUnderUnprivilegedService(): void {
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
