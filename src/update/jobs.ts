// Update jobs on disk: <state>/update-jobs/<id>.json (written atomically) and <id>.log (what
// npm and the restarts printed). A job is on disk, not in memory, because it outlives the
// gateway that started it: the worker finishes it after the restart, and the next gateway
// answers GET /api/updates/status/<id> from the same file.
import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { SvcPaths } from '../config/paths.js';
import { TERMINAL_UPDATE_STATES, type InstalledTree, type UpdateChannel, type UpdateJob, type UpdateJobState } from '../protocol/updates.js';
import { isRunning } from '../lib/process.js';

const ID = /^[0-9a-f]{12}$/;

export const jobsDir = (paths: SvcPaths) => join(paths.stateRoot, 'update-jobs');
export const jobLog = (paths: SvcPaths, id: string) => join(jobsDir(paths), `${id}.log`);
const jobFile = (paths: SvcPaths, id: string) => join(jobsDir(paths), `${id}.json`);

export function newJob(kind: UpdateJob['kind'], channel: UpdateChannel, from: InstalledTree, to: InstalledTree): UpdateJob {
  const now = new Date().toISOString();
  return {
    id: randomBytes(6).toString('hex'), kind, channel, state: 'queued', message: 'queued', from, to,
    created_at: now, updated_at: now, error: null, restarted: null, restart_mode: null, migration: null,
    history: [{ state: 'queued', at: now, message: 'queued' }], owner_pid: process.pid, handover: null,
  };
}

/** The job, or null for an unknown id (ids are 12 hex digits: nothing else reaches the file system). */
export async function readJob(paths: SvcPaths, id: string): Promise<UpdateJob | null> {
  if (!ID.test(id)) return null;
  return readFile(jobFile(paths, id), 'utf8').then((text) => JSON.parse(text) as UpdateJob, () => null);
}

export async function writeJob(paths: SvcPaths, job: UpdateJob): Promise<void> {
  await writeFileAtomic(jobFile(paths, job.id), `${JSON.stringify(job, null, 2)}\n`);
}

/** Enter a state: the job is rewritten with the state, its message and one more history row. */
export async function advance(paths: SvcPaths, job: UpdateJob, state: UpdateJobState, message: string, patch: Partial<UpdateJob> = {}): Promise<UpdateJob> {
  const at = new Date().toISOString();
  const next: UpdateJob = { ...job, ...patch, state, message, updated_at: at, history: [...job.history, { state, at, message }] };
  await writeJob(paths, next);
  return next;
}

/** Every job, newest first. */
export async function listJobs(paths: SvcPaths): Promise<UpdateJob[]> {
  const names = await readdir(jobsDir(paths)).catch(() => [] as string[]);
  const jobs = await Promise.all(names.filter((n) => n.endsWith('.json')).map((n) => readJob(paths, n.slice(0, -5))));
  return jobs.filter((j): j is UpdateJob => j !== null).sort((a, b) => b.created_at.localeCompare(a.created_at));
}

/** Jobs kept on disk: the newest this many, finished or not (a running one is always among them). */
export const JOBS_KEPT = 20;

/** Remove the files of finished jobs beyond the newest JOBS_KEPT. */
export async function pruneJobs(paths: SvcPaths, keep = JOBS_KEPT): Promise<number> {
  const old = (await listJobs(paths)).slice(keep).filter((job) => TERMINAL_UPDATE_STATES.has(job.state));
  await Promise.all(old.flatMap((job) => [rm(jobFile(paths, job.id), { force: true }), rm(jobLog(paths, job.id), { force: true })]));
  return old.length;
}

export const isTerminal = (job: UpdateJob) => TERMINAL_UPDATE_STATES.has(job.state);

/**
 * The job that runs now, if any. A job left unfinished by a process that is gone (a gateway
 * stopped mid-install, a killed worker) is marked failed on the way, so it blocks nothing.
 */
export async function activeJob(paths: SvcPaths): Promise<UpdateJob | null> {
  for (const job of await listJobs(paths)) {
    if (isTerminal(job)) continue;
    if (await isRunning(job.owner_pid)) return job;
    await advance(paths, job, 'failed', `interrupted: the process running it (pid ${job.owner_pid}) is gone`, {
      error: { code: 'update.interrupted', message: `the job stopped in state ${job.state}: the process running it (pid ${job.owner_pid}) is gone` },
      restarted: job.restarted ?? false,
    });
  }
  return null;
}
