import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFacts, resolvePaths } from '../config/paths.js';
import { activeJob, advance, listJobs, newJob, pruneJobs, readJob, writeJob } from './jobs.js';

const home = () => resolvePaths(hostFacts({ SVC_HOME: mkdtempSync(join(tmpdir(), 'svc-jobs-')) }));
const trees = { from: { version: '1.0.0', path: '/a' }, to: { version: '1.1.0', path: '/b' } };

describe('update jobs on disk', () => {
  it('keeps each state entered in the history and reads back what it wrote', async () => {
    const paths = home();
    let job = newJob('update', 'stable', trees.from, trees.to);
    expect(job.id).toMatch(/^[0-9a-f]{12}$/);
    await writeJob(paths, job);
    job = await advance(paths, job, 'downloading', 'downloading x');
    expect(await readJob(paths, job.id)).toEqual(job);
    expect(job.history.map((h) => h.state)).toEqual(['queued', 'downloading']);
  });

  it('reads no file for an id that is not 12 hex digits', async () => {
    const paths = home();
    expect(await readJob(paths, '../../../etc/passwd')).toBeNull();
    expect(await readJob(paths, 'ABCDEF012345')).toBeNull();
  });

  it('treats a job whose process is alive as running, and marks one whose process is gone interrupted', async () => {
    const paths = home();
    const mine = newJob('update', 'stable', trees.from, trees.to);
    await writeJob(paths, mine);
    expect((await activeJob(paths))?.id).toBe(mine.id);
    await writeJob(paths, { ...mine, owner_pid: 2 ** 22 + 1 });
    expect(await activeJob(paths)).toBeNull();
    const [ended] = await listJobs(paths);
    expect(ended).toMatchObject({ state: 'failed', error: { code: 'update.interrupted' }, restarted: false });
  });

  it('keeps the newest finished jobs and every unfinished one', async () => {
    const paths = home();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = { ...newJob('update', 'stable', trees.from, trees.to), created_at: `2026-01-0${i + 1}T00:00:00.000Z` };
      await writeJob(paths, i === 0 ? job : { ...job, state: 'applied' });
      ids.push(job.id);
    }
    expect(await pruneJobs(paths, 2)).toBe(2);
    expect((await listJobs(paths)).map((j) => j.id)).toEqual([ids[4], ids[3], ids[0]]);
  });
});
