// Pull jobs: queued → resolving → downloading → verifying → done | failed | cancelled. At
// most `cap()` jobs run at once, the rest wait in arrival order; pulling a model again while
// its job runs returns that job. The manager owns the state; the work of each step is in
// plan.ts and download.ts, and the caller supplies planning, registration and publishing.
import { randomBytes } from 'node:crypto';
import { ModelError, SvcError } from '../../protocol/errors.js';
import type { Hub } from '../hf/hub.js';
import type { PullFileProgress, PullJobPayload, PullPlanPayload, PullState } from '../../protocol/pulls.js';
import { TERMINAL_PULL_STATES } from '../../protocol/pulls.js';
import { downloadFile } from './download.js';
import { discardParts } from './parts.js';
import { checkPlan } from './plan.js';
import { Progress } from './progress.js';

export interface PullDeps {
  readonly cap: () => number;
  readonly connections: number;
  readonly stallMs: () => number;
  readonly hub: () => Hub;
  plan(job: PullJobPayload, signal: AbortSignal, context: number | undefined): Promise<PullPlanPayload>;
  /** Link the snapshot, update the registry; returns the registered path. */
  register(plan: PullPlanPayload, sha256: string | null): Promise<string>;
  publish(type: 'queued' | 'started' | 'progress' | 'completed' | 'failed' | 'cancelled', job: PullJobPayload, extra?: Record<string, unknown>): void;
}

interface Running {
  readonly job: PullJobPayload;
  readonly abort: AbortController;
  /** The context the fit check assumes (the request's, else the default). */
  readonly context: number | undefined;
  plan?: PullPlanPayload;
  discard?: boolean;
}

const now = () => new Date().toISOString();

export class PullManager {
  private readonly jobs = new Map<string, Running>();
  private readonly queue: string[] = [];
  private readonly listeners = new Set<(job: PullJobPayload) => void>();
  /** One download per target file at a time: two ids pulling the same blob must not share its part files. */
  private readonly targets = new Map<string, Promise<unknown>>();
  private running = 0;

  constructor(private readonly deps: PullDeps) {}

  get(modelId: string): PullJobPayload | undefined {
    return this.jobs.get(modelId)?.job;
  }

  list(): PullJobPayload[] {
    return [...this.jobs.values()].map((r) => r.job);
  }

  /** Every change to any job (the SSE stream filters by model id). */
  subscribe(listener: (job: PullJobPayload) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Start a pull, or return the one already queued or running for this model. */
  start(modelId: string, ref: string, options: { force: boolean; context?: number }): { job: PullJobPayload; existing: boolean } {
    const current = this.jobs.get(modelId);
    if (current && !TERMINAL_PULL_STATES.includes(current.job.state)) return { job: current.job, existing: true };
    const job: PullJobPayload = {
      id: randomBytes(8).toString('hex'), model_id: modelId, ref, state: 'queued', files: [], bytes_done: 0, bytes_total: 0, bytes_fetched: 0,
      rate: 0, eta_s: null, created_at: now(), started_at: null, finished_at: null, error: null, sha256: null, path: null, commit: null, resumed: false, force: options.force,
    };
    this.jobs.set(modelId, { job, abort: new AbortController(), context: options.context });
    this.queue.push(modelId);
    this.deps.publish('queued', job);
    this.changed(job);
    this.next();
    return { job, existing: false };
  }

  /** Cancel a queued or running pull; the parts stay on disk unless `discard`. */
  async cancel(modelId: string, discard: boolean): Promise<PullJobPayload> {
    const entry = this.jobs.get(modelId);
    if (!entry) throw new ModelError('model.pull_no_job', `no pull of ${modelId} exists`, { model_id: modelId });
    if (TERMINAL_PULL_STATES.includes(entry.job.state)) {
      if (discard && entry.job.state !== 'done' && entry.plan) await this.discard(entry.plan);
      return entry.job;
    }
    entry.discard = discard;
    const queued = this.queue.indexOf(modelId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(entry, 'cancelled');
    } else {
      entry.abort.abort(new ModelError('model.pull_failed', 'cancelled', {}));
      await new Promise<void>((resolve) => {
        const stop = this.subscribe((job) => job.id === entry.job.id && TERMINAL_PULL_STATES.includes(job.state) && (stop(), resolve()));
      });
    }
    return entry.job;
  }

  /** Stop every running pull (shutdown); parts stay for the next pull. */
  stopAll(): void {
    this.queue.length = 0;
    for (const entry of this.jobs.values()) if (!TERMINAL_PULL_STATES.includes(entry.job.state)) entry.abort.abort(new Error('shutting down'));
  }

  private next(): void {
    while (this.running < Math.max(1, this.deps.cap()) && this.queue.length > 0) {
      const entry = this.jobs.get(this.queue.shift()!)!;
      this.running++;
      void this.run(entry).finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private async run(entry: Running): Promise<void> {
    const { job, abort } = entry;
    let progress: Progress | undefined;
    try {
      job.started_at = now();
      this.set(job, 'resolving');
      this.deps.publish('started', job);
      const plan = await this.deps.plan(job, abort.signal, entry.context);
      entry.plan = plan;
      checkPlan(plan, job.force);
      job.commit = plan.commit;
      job.files = plan.files.map((f): PullFileProgress => ({ path: f.path, role: f.role, size: f.size, bytes_done: f.on_disk_bytes, state: f.on_disk_bytes === f.size ? 'done' : 'waiting' }));
      job.bytes_total = plan.bytes_total;
      job.bytes_done = plan.bytes_on_disk;
      job.resumed = plan.bytes_on_disk > 0;
      this.set(job, 'downloading');
      const tracker = new Progress(job, (pct) => this.deps.publish('progress', job, { pct }), () => this.changed(job));
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
        if (entry.discard && entry.plan) await this.discard(entry.plan);
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

  private async discard(plan: PullPlanPayload): Promise<void> {
    await Promise.all(plan.files.map((f) => discardParts(f.target, f.size)));
  }

  private finish(entry: Running, state: PullState, extra: Record<string, unknown> = {}): void {
    const { job } = entry;
    job.finished_at = now();
    job.rate = 0;
    job.eta_s = null;
    this.set(job, state);
    if (state === 'done') this.deps.publish('completed', job, { sha256: job.sha256, path: job.path });
    else if (state === 'failed') this.deps.publish('failed', job, extra);
    else this.deps.publish('cancelled', job, { discard: entry.discard ?? false });
  }

  private set(job: PullJobPayload, state: PullState): void {
    job.state = state;
    this.changed(job);
  }

  private changed(job: PullJobPayload): void {
    for (const listener of [...this.listeners]) listener(job);
  }
}
