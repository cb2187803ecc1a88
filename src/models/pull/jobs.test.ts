// PullManager.wait: what a stack apply that pulls awaits instead of polling the job; the jobs
// it hands out are snapshots.
import { describe, expect, it } from 'vitest';
import { ModelError } from '../../protocol/errors.js';
import type { PullJobPayload, PullPlanPayload } from '../../protocol/pulls.js';
import type { Hub } from '../hf/hub.js';
import { PullManager } from './jobs.js';

/** A plan with nothing to download that fits: the job goes straight to register. */
function emptyPlan(modelId: string): PullPlanPayload {
  return {
    model_id: modelId, ref: modelId, source: 'hf', repo: 'org/repo', revision: 'main', commit: 'c0ffee', quant: null, files: [], path: `/store/${modelId}.gguf`, parts: [],
    mmproj: null, architecture: null, context_length: null, layers: null, mtp: false, bytes_total: 0, bytes_on_disk: 0,
    fit: { fits: true } as PullPlanPayload['fit'], disk: { free_bytes: 1, needed_bytes: 0, fits: true }, profile: null, capabilities: null, store: '/store',
  };
}

/** A manager whose planning step waits until the test settles it (or the job is aborted). */
function managerWithHeldPlans(queueMax?: () => number) {
  const held = new Map<string, { resolve: (plan: PullPlanPayload) => void; reject: (error: Error) => void }>();
  const manager = new PullManager({
    queueMax,
    cap: () => 2,
    connections: 1,
    stallMs: () => 60_000,
    hub: () => ({}) as Hub,
    plan: (job, signal) => new Promise((resolve, reject) => {
      held.set(job.model_id, { resolve, reject });
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    }),
    register: async (plan) => plan.path,
    publish: () => undefined,
  });
  return { manager, held };
}

/** Let every pending callback run: what was not settled by then waits on something else. */
const settledSoFar = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void promise.then(() => (settled = true), () => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe('PullManager.wait', () => {
  it('resolves with the job once it is done, not before', async () => {
    const { manager, held } = managerWithHeldPlans();
    manager.start('m', 'org/repo', { force: false });
    const waiting = manager.wait('m');
    expect(await settledSoFar(waiting)).toBe(false);
    held.get('m')!.resolve(emptyPlan('m'));
    expect(await waiting).toMatchObject({ model_id: 'm', state: 'done', path: '/store/m.gguf' });
  });

  it('resolves with a failed job and its error', async () => {
    const { manager, held } = managerWithHeldPlans();
    manager.start('m', 'org/repo', { force: false });
    const waiting = manager.wait('m');
    held.get('m')!.reject(new ModelError('model.pull_not_found', 'no such repo', {}));
    expect(await waiting).toMatchObject({ state: 'failed', error: { code: 'model.pull_not_found', message: 'no such repo' } });
  });

  it('resolves with a cancelled job', async () => {
    const { manager } = managerWithHeldPlans();
    manager.start('m', 'org/repo', { force: false });
    const waiting = manager.wait('m');
    await manager.cancel('m', false);
    expect(await waiting).toMatchObject({ state: 'cancelled' });
  });

  it('answers at once for a finished job, and undefined for a model with no job', async () => {
    const { manager, held } = managerWithHeldPlans();
    expect(await manager.wait('none')).toBeUndefined();
    manager.start('m', 'org/repo', { force: false });
    held.get('m')!.resolve(emptyPlan('m'));
    await manager.wait('m');
    expect(await settledSoFar(manager.wait('m'))).toBe(true);
  });

  it('waits for its own job only: another model ending does not settle it', async () => {
    const { manager, held } = managerWithHeldPlans();
    manager.start('a', 'org/a', { force: false });
    manager.start('b', 'org/b', { force: false });
    const waitingA = manager.wait('a');
    held.get('b')!.resolve(emptyPlan('b'));
    await manager.wait('b');
    expect(await settledSoFar(waitingA)).toBe(false);
    held.get('a')!.resolve(emptyPlan('a'));
    expect(await waitingA).toMatchObject({ model_id: 'a', state: 'done' });
  });

  it('rejects with the reason when its signal aborts, leaving the job running', async () => {
    const { manager, held } = managerWithHeldPlans();
    manager.start('m', 'org/repo', { force: false });
    const abort = new AbortController();
    const waiting = manager.wait('m', abort.signal);
    abort.abort(new Error('the client left'));
    await expect(waiting).rejects.toThrow('the client left');
    expect(manager.get('m')?.state).toBe('resolving');
    held.get('m')!.resolve(emptyPlan('m'));
    expect(await manager.wait('m')).toMatchObject({ state: 'done' });
    await expect(manager.wait('m', AbortSignal.abort(new Error('already gone')))).resolves.toMatchObject({ state: 'done' });
  });
});

describe('the bound on waiting pulls', () => {
  it('refuses a pull past [models].pull_queue_max, and takes one again once a job ended', async () => {
    const { manager, held } = managerWithHeldPlans(() => 3);
    for (const id of ['a', 'b', 'c']) manager.start(id, `org/${id}`, { force: false }); // two run, one queued
    expect(manager.start('a', 'org/a', { force: false }).existing).toBe(true); // the same model is its own job, not one more
    expect(() => manager.start('d', 'org/d', { force: false })).toThrow(expect.objectContaining({ code: 'model.pull_queue_full', details: expect.objectContaining({ waiting: 3, max: 3 }) }));
    expect(manager.get('d')).toBeUndefined();
    held.get('a')!.resolve(emptyPlan('a'));
    await manager.wait('a');
    expect(manager.start('d', 'org/d', { force: false }).existing).toBe(false);
  });
});

describe('PullManager.dismiss', () => {
  it('forgets a finished job by its id, and says so', async () => {
    const published: string[] = [];
    const manager = new PullManager({
      cap: () => 1, connections: 1, stallMs: () => 60_000, hub: () => ({}) as Hub,
      plan: async () => { throw new ModelError('model.pull_failed', 'cannot reach the Hugging Face endpoint', {}); },
      register: async (plan) => plan.path,
      publish: (kind, job) => void published.push(`${kind} ${job.model_id}`),
    });
    const { job } = manager.start('m', 'org/repo', { force: false });
    expect(await manager.wait('m')).toMatchObject({ state: 'failed' });
    expect(await manager.dismiss(job.id, false)).toMatchObject({ id: job.id, state: 'failed' });
    expect(manager.list()).toEqual([]);
    expect(published.at(-1)).toBe('dismissed m');
    await expect(manager.dismiss(job.id, false)).rejects.toMatchObject({ code: 'model.pull_no_job' });
  });

  it('refuses a job still running: it is cancelled first', async () => {
    const { manager } = managerWithHeldPlans();
    const { job } = manager.start('m', 'org/repo', { force: false });
    await expect(manager.dismiss(job.id, false)).rejects.toMatchObject({ code: 'model.pull_running', details: { state: 'resolving' } });
    await manager.cancel('m', false);
    await manager.dismiss(job.id, false);
    expect(manager.get('m')).toBeUndefined();
  });
});

describe('the jobs a PullManager hands out', () => {
  it('are snapshots: what get, list, start and listeners got does not change as the job goes on', async () => {
    let release!: (plan: PullPlanPayload) => void;
    const heard: PullJobPayload[] = [];
    const manager = new PullManager({
      cap: () => 1, connections: 1, stallMs: () => 60_000, hub: () => ({}) as Hub,
      plan: () => new Promise((resolve) => (release = resolve)),
      register: async (plan) => plan.path,
      publish: (_kind, published) => void heard.push(published),
    });
    manager.subscribe((changed) => heard.push(changed));
    const { job: started } = manager.start('m', 'org/repo', { force: false });
    const got = manager.get('m')!;
    const listed = manager.list()[0]!;
    expect(got.state).toBe('resolving');
    release(emptyPlan('m'));
    expect(await manager.wait('m')).toMatchObject({ state: 'done', path: '/store/m.gguf' });
    expect([started.state, got.state, listed.state]).toEqual(['resolving', 'resolving', 'resolving']);
    expect(got.path).toBeNull();
    // Each event and each change heard kept the state it had when it was sent.
    expect(heard.map((h) => h.state)).toEqual(['queued', 'queued', 'resolving', 'resolving', 'downloading', 'verifying', 'done', 'done']);
  });
});
