// Pull jobs: queued → resolving → downloading → verifying → done | failed | cancelled. At
// most `cap()` jobs run at once, the rest wait in arrival order; pulling a model again while
// its job runs returns that job. The manager owns the state; the work of each step is in
// plan.ts and download.ts, and the caller supplies planning, registration and publishing.
// A job moves only as states.ts allows, and leaves the manager as a snapshot (get, list,
// subscribe, the events): the manager's own object is the one progress.ts updates.
// Every job is kept on disk (records.ts): a restart finds the finished ones and runs the
// unfinished ones again from their parts; the newest PULL_JOBS_KEPT finished ones are kept,
// and at most [models].pull_queue_max wait or run (one more is refused: model.pull_queue_full).
import { randomBytes } from 'node:crypto';
import { ModelError, SvcError } from '../../protocol/errors.js';
import type { Hub } from '../hf/hub.js';
import { parsePullRef } from '../../protocol/pull-ref.js';
import type { PullFileProgress, PullJobPayload, PullPlanPayload, PullState } from '../../protocol/pulls.js';
import { TERMINAL_PULL_STATES } from '../../protocol/pulls.js';
import { downloadFile } from './download.js';
import { discardParts } from './parts.js';
import { checkPlan } from './plan.js';
import { Progress } from './progress.js';
import { finishedBeyond, isFinished, PULL_JOBS_KEPT, type LoadedRecords, type PullJobRecords, type PullRecord } from './records.js';
import { moveJob, snapshot } from './states.js';

export interface PullDeps {
  readonly cap: () => number;
  readonly connections: number;
  readonly stallMs: () => number;
  readonly hub: () => Hub;
  plan(job: PullJobPayload, signal: AbortSignal, context: number | undefined): Promise<PullPlanPayload>;
  /** Link the snapshot, update the registry; returns the registered path. */
  register(plan: PullPlanPayload, sha256: string | null): Promise<string>;
  publish(type: 'queued' | 'started' | 'progress' | 'completed' | 'failed' | 'cancelled' | 'dismissed', job: PullJobPayload, extra?: Record<string, unknown>): void;
  /** Where jobs are kept across restarts (none: in memory only). */
  readonly records?: Pick<PullJobRecords, 'save' | 'forget' | 'flush'>;
  /** Finished jobs kept (default PULL_JOBS_KEPT). */
  readonly keep?: number;
  /** Most jobs queued or running at once ([models].pull_queue_max; default: no cap). */
  readonly queueMax?: () => number;
}

interface Running {
  readonly job: PullJobPayload;
  readonly abort: AbortController;
  /** The context the fit check assumes (the request's, else the default). */
  readonly context: number | undefined;
  /** The files of the plan (also known for a job restored from its record): what a discard removes. */
  downloads?: PullRecord['downloads'];
  discard?: boolean;
  /** The state last written to the record, and when: progress is written at most every RECORD_EVERY_MS. */
  recorded?: { state: PullState; at: number };
}

const now = () => new Date().toISOString();
/** A job's progress reaches its record this often; a state change always does at once. */
const RECORD_EVERY_MS = 5_000;

export class PullManager {
  private readonly jobs = new Map<string, Running>();
  private readonly queue: string[] = [];
  private readonly listeners = new Set<(job: PullJobPayload) => void>();
  /** One download per target file at a time: two ids pulling the same blob must not share its part files. */
  private readonly targets = new Map<string, Promise<unknown>>();
  private running = 0;
  private readonly runs = new Set<Promise<void>>();
  /** Set by close(): an abort is a shutdown, not a cancel, and the jobs stay unfinished on disk. */
  private closing = false;

  constructor(private readonly deps: PullDeps) {}

  get(modelId: string): PullJobPayload | undefined {
    const entry = this.jobs.get(modelId);
    return entry && snapshot(entry.job);
  }

  list(): PullJobPayload[] {
    return [...this.jobs.values()].map((r) => snapshot(r.job));
  }

  /** Every change to any job (the SSE stream filters by model id). */
  subscribe(listener: (job: PullJobPayload) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The job of `modelId` once it has ended (done, failed or cancelled): at once when it has,
   * undefined when no job of it is known. Rejects with the signal's reason if it aborts first.
   */
  wait(modelId: string, signal?: AbortSignal): Promise<PullJobPayload | undefined> {
    const job = this.get(modelId);
    if (!job || TERMINAL_PULL_STATES.includes(job.state)) return Promise.resolve(job);
    return new Promise((resolve, reject) => {
      const settle = () => {
        stop();
        signal?.removeEventListener('abort', aborted);
      };
      const aborted = () => {
        settle();
        reject(signal!.reason);
      };
      // The job itself, not the model: a later pull of the same model is another job.
      const stop = this.subscribe((changed) => {
        if (changed.id !== job.id || !TERMINAL_PULL_STATES.includes(changed.state)) return;
        settle();
        resolve(changed);
      });
      if (signal?.aborted) aborted();
      else signal?.addEventListener('abort', aborted, { once: true });
    });
  }

  /** Start a pull, or return the one already queued or running for this model. */
  start(modelId: string, ref: string, options: { force: boolean; context?: number }): { job: PullJobPayload; existing: boolean } {
    // A direct URL of a host that is not allowed is refused before a job exists: nothing is recorded.
    const parsed = parsePullRef(ref);
    if ('kind' in parsed && parsed.kind === 'url') this.deps.hub().checkDirect(parsed.url);
    const current = this.jobs.get(modelId);
    if (current && !TERMINAL_PULL_STATES.includes(current.job.state)) return { job: snapshot(current.job), existing: true };
    // Each waiting job is a record on disk and an entry here: their number is bounded, the finished ones by `keep`.
    const waiting = this.own().filter((j) => !TERMINAL_PULL_STATES.includes(j.state)).length;
    const max = this.deps.queueMax?.() ?? Number.MAX_SAFE_INTEGER;
    if (waiting >= max) {
      throw new ModelError('model.pull_queue_full', `${waiting} pulls are queued or running and [models].pull_queue_max is ${max}: pull ${modelId} again once one ends`, { model_id: modelId, waiting, max, field: 'models.pull_queue_max' });
    }
    const job: PullJobPayload = {
      id: randomBytes(8).toString('hex'), model_id: modelId, ref, state: 'queued', files: [], bytes_done: 0, bytes_total: 0, bytes_fetched: 0,
      rate: 0, eta_s: null, created_at: now(), started_at: null, finished_at: null, error: null, sha256: null, path: null, commit: null, resumed: false, force: options.force,
    };
    this.enqueue({ job, abort: new AbortController(), context: options.context });
    return { job: snapshot(job), existing: false };
  }

  /**
   * Take up the jobs a previous gateway left: finished ones answer again, unfinished ones
   * (cut off by a crash or a shutdown) run again, under their own id, from the parts on
   * disk. Returns the jobs that run again.
   */
  restore(records: LoadedRecords): PullJobPayload[] {
    const byCreation = (a: PullRecord, b: PullRecord) => a.job.created_at.localeCompare(b.job.created_at);
    for (const { job, context, downloads } of [...records.finished].sort(byCreation)) {
      if (!this.jobs.has(job.model_id)) this.jobs.set(job.model_id, { job, abort: new AbortController(), context: context ?? undefined, downloads });
    }
    const resumed: PullJobPayload[] = [];
    for (const { job: saved, context, downloads } of [...records.unfinished].sort(byCreation)) {
      const current = this.jobs.get(saved.model_id);
      if (current && !isFinished(current.job)) continue;
      const job: PullJobPayload = { ...saved, state: 'queued', files: [], bytes_fetched: 0, rate: 0, eta_s: null, started_at: null, finished_at: null, error: null, sha256: null, path: null };
      this.enqueue({ job, abort: new AbortController(), context: context ?? undefined, downloads });
      resumed.push(snapshot(job));
    }
    this.prune();
    return resumed;
  }

  /** Cancel a queued or running pull; the parts stay on disk unless `discard`. */
  async cancel(modelId: string, discard: boolean): Promise<PullJobPayload> {
    const entry = this.jobs.get(modelId);
    if (!entry) throw new ModelError('model.pull_no_job', `no pull of ${modelId} exists`, { model_id: modelId });
    if (TERMINAL_PULL_STATES.includes(entry.job.state)) {
      if (discard && entry.job.state !== 'done') await this.discard(entry);
      return snapshot(entry.job);
    }
    entry.discard = discard;
    const queued = this.queue.indexOf(modelId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(entry, 'cancelled');
    } else {
      entry.abort.abort(new ModelError('model.pull_failed', 'cancelled', {}));
      await this.wait(modelId);
    }
    return snapshot(entry.job);
  }

  /**
   * Forget a finished job (done, failed or cancelled), here and on disk, by its job id: it
   * leaves the list. Its parts stay (a new pull resumes from them) unless `discard`.
   */
  async dismiss(jobId: string, discard: boolean): Promise<PullJobPayload> {
    const entry = [...this.jobs.values()].find((r) => r.job.id === jobId);
    if (!entry) throw new ModelError('model.pull_no_job', `no pull job ${jobId} exists (GET /api/models/pulls lists them)`, { job: jobId });
    const { job } = entry;
    if (!isFinished(job)) throw new ModelError('model.pull_running', `the pull of ${job.model_id} is still ${job.state}: cancel it first (DELETE /api/models/${job.model_id}/pull)`, { job: jobId, model_id: job.model_id, state: job.state });
    if (discard && job.state !== 'done') await this.discard(entry);
    this.jobs.delete(job.model_id);
    await this.deps.records?.forget(job.model_id);
    this.publish('dismissed', job, { discard });
    return snapshot(job);
  }

  /**
   * Stop every pull (shutdown) and wait for them and their records: the parts stay, and
   * the records say queued or running, so the next gateway resumes them.
   */
  async close(): Promise<void> {
    this.closing = true;
    this.queue.length = 0;
    for (const entry of this.jobs.values()) if (!TERMINAL_PULL_STATES.includes(entry.job.state)) entry.abort.abort(new Error('shutting down'));
    await Promise.allSettled([...this.runs]);
    await this.deps.records?.flush();
  }

  private enqueue(entry: Running): void {
    this.jobs.set(entry.job.model_id, entry);
    this.queue.push(entry.job.model_id);
    this.publish('queued', entry.job);
    this.changed(entry.job);
    this.next();
  }

  private next(): void {
    while (this.running < Math.max(1, this.deps.cap()) && this.queue.length > 0) {
      const entry = this.jobs.get(this.queue.shift()!)!;
      this.running++;
      const run: Promise<void> = this.run(entry).finally(() => {
        this.runs.delete(run);
        this.running--;
        this.next();
      });
      this.runs.add(run);
    }
  }

  private async run(entry: Running): Promise<void> {
    const { job, abort } = entry;
    let progress: Progress | undefined;
    try {
      job.started_at = now();
      this.set(job, 'resolving');
      this.publish('started', job);
      const plan = await this.deps.plan(snapshot(job), abort.signal, entry.context);
      entry.downloads = plan.files.map((f) => ({ target: f.target, size: f.size }));
      checkPlan(plan, job.force);
      job.commit = plan.commit;
      job.files = plan.files.map((f): PullFileProgress => ({ path: f.path, role: f.role, size: f.size, bytes_done: f.on_disk_bytes, state: f.on_disk_bytes === f.size ? 'done' : 'waiting' }));
      job.bytes_total = plan.bytes_total;
      job.bytes_done = plan.bytes_on_disk;
      job.resumed = plan.bytes_on_disk > 0;
      this.set(job, 'downloading');
      const tracker = new Progress(job, (pct) => this.publish('progress', job, { pct }), () => this.changed(job));
      progress = tracker;
      let modelSha: string | null = null;
      for (const [index, file] of plan.files.entries()) {
        const view = job.files[index]!;
        view.state = 'downloading';
        const result = await this.exclusive(file.target, () => downloadFile(
          { url: file.url, size: file.size, sha256: file.sha256, gitOid: file.git_oid, target: file.target },
          { hub: this.deps.hub(), signal: abort.signal, stallMs: this.deps.stallMs(), connections: this.deps.connections, onBytes: (n) => tracker.add(view, n) },
        ));
        if (file.role === 'model') modelSha = result.sha256;
        view.state = 'done';
        view.bytes_done = file.size;
        job.bytes_done = job.files.reduce((sum, f) => sum + f.bytes_done, 0);
        this.changed(job);
      }
      tracker.stop();
      this.set(job, 'verifying');
      job.path = await this.deps.register(plan, modelSha);
      job.sha256 = modelSha;
      this.finish(entry, 'done');
    } catch (error) {
      if (abort.signal.aborted) {
        // A shutdown leaves the job as its record says (unfinished), for the next gateway.
        if (this.closing) return;
        if (entry.discard) await this.discard(entry);
        this.finish(entry, 'cancelled');
        return;
      }
      const svc = error instanceof SvcError ? error : new ModelError('model.pull_failed', (error as Error).message, {});
      job.error = { code: svc.code, message: svc.message };
      this.finish(entry, 'failed', { error: svc.message, error_code: svc.code, details: svc.details });
    } finally {
      // A failed or cancelled job's rate timer must not tick on.
      progress?.stop();
    }
  }

  /** Run `work` once no other job is downloading `target` (the later one then finds it in place). */
  private async exclusive<T>(target: string, work: () => Promise<T>): Promise<T> {
    const before = this.targets.get(target) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    this.targets.set(target, mine);
    try {
      return await mine;
    } finally {
      if (this.targets.get(target) === mine) this.targets.delete(target);
    }
  }

  private async discard(entry: Running): Promise<void> {
    await Promise.all((entry.downloads ?? []).map((f) => discardParts(f.target, f.size)));
  }

  private finish(entry: Running, state: PullState, extra: Record<string, unknown> = {}): void {
    const { job } = entry;
    job.finished_at = now();
    job.rate = 0;
    job.eta_s = null;
    this.set(job, state);
    if (state === 'done') this.publish('completed', job, { sha256: job.sha256, path: job.path });
    else if (state === 'failed') this.publish('failed', job, extra);
    else this.publish('cancelled', job, { discard: entry.discard ?? false });
    this.prune();
  }

  /** Forget the finished jobs beyond the newest `keep`, here and on disk. */
  private prune(): void {
    for (const modelId of finishedBeyond(this.own(), this.deps.keep ?? PULL_JOBS_KEPT)) {
      this.jobs.delete(modelId);
      void this.deps.records?.forget(modelId);
    }
  }

  private set(job: PullJobPayload, state: PullState): void {
    moveJob(job, state);
    this.changed(job);
  }

  private changed(job: PullJobPayload): void {
    const entry = this.jobs.get(job.model_id);
    if (entry?.job === job) this.record(entry);
    const copy = snapshot(job);
    for (const listener of [...this.listeners]) listener(copy);
  }

  /** The manager's own jobs (not copies), for its own decisions. */
  private own(): PullJobPayload[] {
    return [...this.jobs.values()].map((r) => r.job);
  }

  /** Every event carries a snapshot of the job as it is now. */
  private publish(...[kind, job, extra]: Parameters<PullDeps['publish']>): void {
    this.deps.publish(kind, snapshot(job), extra);
  }

  /** Write the job's record on a state change, and its progress now and then. */
  private record(entry: Running): void {
    const { job } = entry;
    // Once closing, only a job that still ends (done) is written: an aborted one stays as it was.
    if (!this.deps.records || (this.closing && !isFinished(job))) return;
    const at = Date.now();
    if (entry.recorded?.state === job.state && at - entry.recorded.at < RECORD_EVERY_MS) return;
    entry.recorded = { state: job.state, at };
    void this.deps.records.save({ job: snapshot(job), context: entry.context ?? null, downloads: entry.downloads ?? [] });
  }
}
