// Pull jobs on disk, so that a restart loses none (issue 22). `<state>/pull-jobs/<id>.json`
// holds the last finished job of each model id (the newest PULL_JOBS_KEPT kept);
// `pull-jobs/unfinished/<id>.json` each job still queued or running, which the next gateway
// resumes at boot. Keyed by model id, as the manager and the status route are. The
// unfinished ones have a folder of their own so that boot learns from one directory listing
// whether anything is left to resume (start-up time, docs/performance.md).
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/atomic.js';
import { MODEL_ID_PATTERN } from '../../protocol/model-ids.js';
import { PULL_STATES, TERMINAL_PULL_STATES, type PullJobPayload } from '../../protocol/pulls.js';

/** Finished jobs kept, in memory and on disk; an unfinished one is never pruned. */
export const PULL_JOBS_KEPT = 50;

export interface PullRecord {
  readonly job: PullJobPayload;
  /** The context the fit check assumed (the request's), so that a resume assumes the same. */
  readonly context: number | null;
  /** The files the job fetches, once planned: what a cancel with discard removes, after a restart too. */
  readonly downloads: ReadonlyArray<{ readonly target: string; readonly size: number }>;
}

export const pullJobsDir = (stateRoot: string) => join(stateRoot, 'pull-jobs');
const unfinishedDir = (dir: string) => join(dir, 'unfinished');
/** A record's name: `<model id>.json`; temp files of an atomic write start with "." and never match. */
const idOfName = (name: string) => (name.endsWith('.json') && MODEL_ID_PATTERN.test(name.slice(0, -5)) ? name.slice(0, -5) : null);
export const isFinished = (job: Pick<PullJobPayload, 'state'>) => TERMINAL_PULL_STATES.includes(job.state);

/** Whether a gateway stopped with pulls unfinished: one directory listing, all boot pays. */
export async function hasUnfinishedPulls(stateRoot: string): Promise<boolean> {
  const names = await readdir(unfinishedDir(pullJobsDir(stateRoot))).catch(() => [] as string[]);
  return names.some((name) => idOfName(name) !== null);
}

/** The model ids of the finished jobs beyond the newest `keep` (by when they finished). */
export function finishedBeyond(jobs: readonly PullJobPayload[], keep: number): string[] {
  const finished = jobs.filter(isFinished).sort((a, b) => (b.finished_at ?? b.created_at).localeCompare(a.finished_at ?? a.created_at));
  return finished.slice(keep).map((job) => job.model_id);
}

export interface LoadedRecords {
  readonly finished: PullRecord[];
  readonly unfinished: PullRecord[];
}

export class PullJobRecords {
  /** Each model id's writes, in order: a later one never lands before an earlier one. */
  private readonly chains = new Map<string, Promise<void>>();
  /** An unfinished job's newest text, for the write queued and not yet begun (progress coalesces). */
  private readonly waiting = new Map<string, string>();

  constructor(
    readonly dir: string,
    private readonly warn: (line: string) => void,
  ) {}

  /** Every record; a file that cannot be read or is not a record is skipped with a warning. */
  async load(): Promise<LoadedRecords> {
    const finished = await this.readAll(this.dir, true);
    const unfinished: PullRecord[] = [];
    for (const record of await this.readAll(unfinishedDir(this.dir), false)) {
      // Killed between writing the finished record and removing this one: the job did finish.
      if (finished.some((f) => f.job.id === record.job.id)) await rm(this.unfinishedFile(record.job.model_id), { force: true });
      else unfinished.push(record);
    }
    return { finished, unfinished };
  }

  /** Write the job's record: atomically, never on the event loop, and one at a time per model id. */
  save(record: PullRecord): Promise<void> {
    const id = record.job.model_id;
    // The text is taken now: the job object goes on changing while the write waits.
    const text = `${JSON.stringify(record, null, 2)}\n`;
    if (isFinished(record.job)) {
      return this.then(id, async () => {
        await writeFileAtomic(this.finishedFile(id), text);
        await rm(this.unfinishedFile(id), { force: true });
      });
    }
    const queued = this.waiting.has(id);
    this.waiting.set(id, text);
    if (queued) return this.chains.get(id)!;
    return this.then(id, async () => {
      const newest = this.waiting.get(id)!;
      this.waiting.delete(id);
      await writeFileAtomic(this.unfinishedFile(id), newest);
    });
  }

  /** Remove a pruned job's record. */
  forget(modelId: string): Promise<void> {
    return this.then(modelId, () => rm(this.finishedFile(modelId), { force: true }));
  }

  /** Resolves once every write asked for so far is done (shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.chains.values()]);
  }

  private then(id: string, work: () => Promise<void>): Promise<void> {
    const next = (this.chains.get(id) ?? Promise.resolve())
      .then(work)
      .catch((error: unknown) => this.warn(`cannot write the pull job record of ${id} in ${this.dir}: ${(error as Error).message}`));
    this.chains.set(id, next);
    void next.then(() => this.chains.get(id) === next && this.chains.delete(id));
    return next;
  }

  private async readAll(dir: string, finished: boolean): Promise<PullRecord[]> {
    const names = await readdir(dir).catch(() => [] as string[]);
    const records = await Promise.all(names.map(async (name) => {
      const id = idOfName(name);
      if (id === null) return null;
      const text = await readFile(join(dir, name), 'utf8').catch((error: Error) => (this.warn(`skipped the pull job record ${join(dir, name)}: ${error.message}`), null));
      if (text === null) return null;
      const record = parseRecord(text, id, finished);
      if (typeof record === 'string') this.warn(`skipped the pull job record ${join(dir, name)}: ${record}`);
      return typeof record === 'string' ? null : record;
    }));
    return records.filter((r): r is PullRecord => r !== null);
  }

  private finishedFile(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  private unfinishedFile(id: string): string {
    return join(unfinishedDir(this.dir), `${id}.json`);
  }
}

/** The record, or why it is not one (a torn or hand-edited file must not stop the gateway). */
function parseRecord(text: string, id: string, finished: boolean): PullRecord | string {
  let value: Partial<PullRecord> | undefined;
  try {
    value = JSON.parse(text) as Partial<PullRecord>;
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  const job = value?.job;
  if (!job || typeof job !== 'object' || job.model_id !== id || typeof job.id !== 'string' || typeof job.ref !== 'string' || typeof job.created_at !== 'string') return 'not a pull job record';
  if (!PULL_STATES.includes(job.state) || isFinished(job) !== finished) return `a job in state ${JSON.stringify(job.state)} does not belong here`;
  const context = typeof value.context === 'number' ? value.context : null;
  const downloads = Array.isArray(value.downloads) ? value.downloads.filter((d) => typeof d?.target === 'string' && Number.isInteger(d.size)) : [];
  return { job: { ...job, files: Array.isArray(job.files) ? job.files : [] }, context, downloads };
}
