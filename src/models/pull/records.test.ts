// Pull job records and their pruning: a real PullManager writing real files in a temp
// directory; its planner refuses (or waits until aborted), so no job needs the network.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../../test/helpers/wait.js';
import { ModelError } from '../../protocol/errors.js';
import type { PullJobPayload } from '../../protocol/pulls.js';
import type { Hub } from '../hf/hub.js';
import { PullManager } from './jobs.js';
import { finishedBeyond, hasUnfinishedPulls, PullJobRecords, pullJobsDir } from './records.js';

const job = (model_id: string, state: PullJobPayload['state'], finished_at: string | null): PullJobPayload => ({
  id: `${model_id}-job`, model_id, ref: model_id, state, files: [], bytes_done: 0, bytes_total: 0, bytes_fetched: 0, rate: 0, eta_s: null,
  created_at: '2026-01-01T00:00:00.000Z', started_at: null, finished_at, error: null, sha256: null, path: null, commit: null, resumed: false, force: false,
});

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function setup(keep: number) {
  const state = mkdtempSync(join(tmpdir(), 'svc-pull-records-'));
  made.push(state);
  const warnings: string[] = [];
  const records = new PullJobRecords(pullJobsDir(state), (line) => warnings.push(line));
  const manager = new PullManager({
    cap: () => 100,
    connections: 1,
    stallMs: () => 1000,
    hub: () => ({}) as Hub,
    // "hold-*" ids wait until cancelled or closed; every other one is refused at once.
    plan: (pulled, signal) => new Promise((_resolve, reject) => {
      if (!pulled.model_id.startsWith('hold')) return reject(new ModelError('model.pull_invalid_ref', `no ${pulled.model_id}`, {}));
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    }),
    register: () => Promise.reject(new Error('never reached')),
    publish: () => undefined,
    records,
    keep,
  });
  const files = (sub = '') => readdirSync(join(pullJobsDir(state), sub)).filter((n) => n.endsWith('.json')).sort();
  const settled = (id: string) => waitFor(() => manager.get(id)?.state, { what: `the pull ${id} to end`, until: (state) => ['done', 'failed', 'cancelled'].includes(state ?? ''), interval: 5 });
  return { state, records, manager, files, settled, warnings };
}

describe('finishedBeyond', () => {
  it('names the finished jobs beyond the newest `keep` by when they finished, never an unfinished one', () => {
    const jobs = [job('a', 'done', '2026-01-01T00:00:01Z'), job('b', 'downloading', null), job('c', 'failed', '2026-01-01T00:00:03Z'), job('d', 'cancelled', '2026-01-01T00:00:02Z'), job('e', 'queued', null)];
    expect(finishedBeyond(jobs, 2)).toEqual(['a']);
    expect(finishedBeyond(jobs, 0).sort()).toEqual(['a', 'c', 'd']);
    expect(finishedBeyond(jobs, 50)).toEqual([]);
  });
});

describe('PullManager with records', () => {
  it('keeps the newest `keep` finished jobs in memory and on disk, and every unfinished one', async () => {
    const { manager, files, settled, records } = setup(3);
    manager.start('hold-oldest', 'x', { force: false });
    for (const id of ['m1', 'm2', 'm3', 'm4', 'm5']) {
      manager.start(id, id, { force: false });
      await settled(id);
    }
    await records.flush();
    expect(manager.list().map((j) => j.model_id).sort()).toEqual(['hold-oldest', 'm3', 'm4', 'm5']);
    expect(files()).toEqual(['m3.json', 'm4.json', 'm5.json']);
    expect(files('unfinished')).toEqual(['hold-oldest.json']);
    await manager.close();
  });

  it('a job cut off by close() stays unfinished on disk, and a new manager runs it again under its id', async () => {
    const { state, manager, records, files, settled, warnings } = setup(3);
    const { job: held } = manager.start('hold-a', 'org/a', { force: true, context: 4096 });
    manager.start('gone', 'gone', { force: false });
    await settled('gone');
    await manager.close();
    expect(files('unfinished')).toEqual(['hold-a.json']);
    expect(files()).toEqual(['gone.json']);
    expect(await hasUnfinishedPulls(state)).toBe(true);
    // A torn record and a stray file are skipped with a warning.
    writeFileSync(join(pullJobsDir(state), 'unfinished', 'torn.json'), '{"job": {"model_');
    writeFileSync(join(pullJobsDir(state), 'notes.txt'), 'not a record');
    const loaded = await records.load();
    expect(loaded.unfinished.map((r) => [r.job.id, r.job.state, r.context, r.job.force])).toEqual([[held.id, 'resolving', 4096, true]]);
    expect(warnings).toEqual([expect.stringMatching(/skipped the pull job record .*torn\.json: not JSON/)]);
    const next = setup(3).manager;
    const resumed = next.restore(loaded);
    // It is taken up at once: queued, then resolving under a cap of 100.
    expect(resumed.map((j) => [j.id, j.model_id, j.state])).toEqual([[held.id, 'hold-a', 'resolving']]);
    expect(next.get('gone')).toMatchObject({ state: 'failed', error: { code: 'model.pull_invalid_ref' } });
    await next.close();
  });

  it('a job killed between its finished record and removing the unfinished one counts as finished', async () => {
    const { state, records } = setup(3);
    const finished = job('x', 'done', '2026-01-01T00:00:05Z');
    mkdirSync(join(pullJobsDir(state), 'unfinished'), { recursive: true });
    writeFileSync(join(pullJobsDir(state), 'x.json'), JSON.stringify({ job: finished, context: null, downloads: [] }));
    writeFileSync(join(pullJobsDir(state), 'unfinished', 'x.json'), JSON.stringify({ job: { ...finished, state: 'downloading' }, context: null, downloads: [] }));
    const loaded = await records.load();
    expect([loaded.finished.length, loaded.unfinished.length]).toEqual([1, 0]);
    expect(await hasUnfinishedPulls(state)).toBe(false);
  });

  it('with nothing left unfinished, boot finds nothing to resume', async () => {
    const { state } = setup(3);
    expect(await hasUnfinishedPulls(state)).toBe(false);
  });
});
