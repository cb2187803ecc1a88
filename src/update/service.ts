// Update and rollback jobs, the gateway's half (docs/updates.md). The gateway resolves the
// version, then in the background downloads and verifies it, installs it into its version
// directory, runs its config migrations (keeping backups) and checks it reads this config,
// all while serving. Then it hands the job to a detached worker (worker.ts) that switches
// `current`, restarts the gateway and health-checks the new one, switching back by itself
// when it is not healthy. A gateway that starts while a worker holds a job watches the job
// file and publishes how it ended. The server exposes it (/api/updates); it knows the server
// only through UpdateHost, so it sits below it in the layer map (docs/development.md).
import { constants, existsSync } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { compare } from 'semver';
import { SvcError } from '../protocol/errors.js';
import { CHANNEL_TAG, HANDED_OVER_STATES, type ApplyUpdateRequest, type InstalledTree, type UpdateJob, type UpdateJobState, type UpdateStatePayload } from '../protocol/updates.js';
import { PACKAGE_NAME } from '../lib/version.js';
import { registryUrl } from '../lib/npm.js';
import { packageInfo } from './npm-registry.js';
import { checkConfig, installVersion, versionDist, type VersionDist } from './install.js';
import { activeJob, advance, isTerminal, jobLog, newJob, pruneJobs, readJob, writeJob } from './jobs.js';
import { installedVersions, installPrefix, readCurrent, readPrevious, runningTree, treeBin, treeVersion, versionDir, versionsDir } from './layout.js';
import { prepareHandover, refuseUnderUnprivilegedService, spawnWorker } from './handover.js';
import type { SvcPaths } from '../config/paths.js';
import type { ResolvedConfig } from '../config/load.js';
import type { EventBus } from '../events/bus.js';
import type { ActivityInput } from '../activity/store.js';

/** What the service needs of the gateway that runs it (server/context.ts passes itself). */
export interface UpdateHost {
  readonly version: string;
  readonly paths: SvcPaths;
  readonly config: ResolvedConfig;
  readonly listening: { host: string; port: number };
  readonly events: EventBus;
  record(entry: ActivityInput): void;
}

const WATCH_STEP_MS = 500;

export class UpdateService {
  /** Set while a request is between its checks and its job file: a second one is refused meanwhile. */
  private accepting = false;

  constructor(private readonly ctx: UpdateHost) {}

  /** Start an update to `version`, or to the channel's newest when it is newer than this one. */
  apply(request: ApplyUpdateRequest, actor: string): Promise<UpdateJob> {
    return this.oneAtATime(() => this.startUpdate(request, actor));
  }

  /** Switch back to the tree svc.previous records. */
  rollback(actor: string): Promise<UpdateJob> {
    return this.oneAtATime(() => this.startRollback(actor));
  }

  private async oneAtATime(start: () => Promise<UpdateJob>): Promise<UpdateJob> {
    if (this.accepting) throw new SvcError('update.in_progress', 'another update or rollback is being started; one job at a time', {});
    this.accepting = true;
    try {
      await this.refuseWhileBusy();
      refuseUnderUnprivilegedService();
      return await start();
    } finally {
      this.accepting = false;
    }
  }

  private async startUpdate(request: ApplyUpdateRequest, actor: string): Promise<UpdateJob> {
    const registry = registryUrl();
    const channel = this.ctx.config.svc.updates.channel;
    const target = request.version ?? (await this.channelNewest(registry));
    if (target === this.ctx.version) throw new SvcError('update.up_to_date', `svc ${target} is the version that runs`, { current: target });
    this.refuseDowngrade(target, request.allow_downgrade);
    const dist = await versionDist(registry, PACKAGE_NAME, target);
    const prefix = installPrefix();
    // Refused now rather than at the end of a download: the version directory must be writable.
    await mkdir(versionsDir(prefix), { recursive: true }).then(() => access(versionsDir(prefix), constants.W_OK)).catch((error: Error) => {
      throw new SvcError('update.install_failed', `svc cannot write ${versionsDir(prefix)} (${error.message}): set SVC_PREFIX to a directory it can write, or run it as a user who can`, { prefix });
    });
    const job = newJob('update', channel, this.running(), { version: target, path: versionDir(prefix, target) });
    await this.begin(job, actor);
    void this.runUpdate(job, dist);
    return job;
  }

  /** The version the channel's dist-tag names, when it is newer than this one. */
  private async channelNewest(registry: string): Promise<string> {
    const channel = this.ctx.config.svc.updates.channel;
    const info = await packageInfo(registry, PACKAGE_NAME);
    if (!info.published) throw new SvcError('update.check_failed', `the registry ${registry} has no package ${PACKAGE_NAME}: there is nothing to update to (SVC_NPM_REGISTRY names the registry)`, { registry, package: PACKAGE_NAME });
    const latest = info.distTags[CHANNEL_TAG[channel]];
    if (!latest || compare(latest, this.ctx.version) <= 0) throw new SvcError('update.up_to_date', `svc ${this.ctx.version} is up to date on the ${channel} channel (${latest ? `it offers ${latest}` : 'it offers no version yet'})`, { current: this.ctx.version, channel, latest: latest ?? null });
    return latest;
  }

  /** Issue 22: an older build may predate a security fix, so going back is asked for by name. */
  private refuseDowngrade(target: string, allowed: boolean): void {
    if (allowed || compare(target, this.ctx.version) >= 0) return;
    throw new SvcError('update.downgrade_refused', `${target} is older than the running ${this.ctx.version}: a downgrade needs allow_downgrade: true (svc update --target ${target} --allow-downgrade); \`svc update --rollback\` goes back to the previous version without it`, { current: this.ctx.version, target });
  }

  private async startRollback(actor: string): Promise<UpdateJob> {
    const previous = await readPrevious(this.ctx.paths);
    const version = previous && existsSync(treeBin(previous.path)) ? await treeVersion(previous.path) : null;
    if (!previous || !version) throw new SvcError('update.no_previous', previous ? `the previous tree ${previous.path} is gone; there is nothing to roll back to` : 'no update has run here: svc.previous records no tree to roll back to', { previous });
    const job = newJob('rollback', this.ctx.config.svc.updates.channel, this.running(), { version, path: previous.path });
    await this.begin(job, actor);
    void this.run(job, async (current) => {
      current = await this.step(current, 'migrating', `checking that ${version} reads this configuration`);
      await checkConfig(previous.path, version, this.ctx.paths.svcToml, jobLog(this.ctx.paths, job.id), false);
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
    // activeJob marks a dead one failed and returns the live one (there is at most one).
    const job = await activeJob(this.ctx.paths);
    if (job && HANDED_OVER_STATES.has(job.state)) this.watch(job.id);
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
      await checkConfig(installed.tree, job.to.version, this.ctx.paths.svcToml, jobLog(this.ctx.paths, job.id), true).then((migration) => (current = { ...current, migration }));
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

  /** Give the job to a detached worker (handover.ts), then follow it. */
  private async handOver(job: UpdateJob): Promise<void> {
    const handover = await prepareHandover(this.ctx.paths, this.ctx.listening);
    // Not a state of its own: the worker's first write (switching) says it took the job.
    job = { ...job, handover: handover.handover, restart_mode: handover.restart_mode, updated_at: new Date().toISOString() };
    await writeJob(this.ctx.paths, job);
    spawnWorker(this.ctx.paths, job, () => void this.failIfNotTaken(job.id));
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
