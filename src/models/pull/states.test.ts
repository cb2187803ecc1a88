// A pull job's move table (pure); the snapshots the manager hands out: jobs.test.ts.
import { describe, expect, it } from 'vitest';
import { IllegalTransition } from '../../lib/supervision/lifecycle.js';
import { PULL_STATES, TERMINAL_PULL_STATES, type PullJobPayload } from '../../protocol/pulls.js';
import { moveJob, PULL_MOVES } from './states.js';

const job = (state: PullJobPayload['state']): PullJobPayload => ({
  id: 'j', model_id: 'm', ref: 'org/repo', state, files: [{ path: 'a.gguf', role: 'model', size: 10, bytes_done: 0, state: 'waiting' }], bytes_done: 0, bytes_total: 10, bytes_fetched: 0,
  rate: 0, eta_s: null, created_at: '', started_at: null, finished_at: null, error: null, sha256: null, path: null, commit: null, resumed: false, force: false,
});

describe('PULL_MOVES', () => {
  it('has a row for every state; a finished job moves no more, and no state moves to itself', () => {
    expect(Object.keys(PULL_MOVES).sort()).toEqual([...PULL_STATES].sort());
    for (const state of TERMINAL_PULL_STATES) expect(PULL_MOVES[state]).toEqual([]);
    for (const state of PULL_STATES) expect(PULL_MOVES[state]).not.toContain(state);
  });

  it('moves a job along the table and throws on any other move, leaving it where it was', () => {
    const j = job('queued');
    for (const next of ['resolving', 'downloading', 'verifying', 'done'] as const) moveJob(j, next);
    expect(j.state).toBe('done');
    expect(() => moveJob(j, 'downloading')).toThrow(IllegalTransition);
    expect(() => moveJob(job('queued'), 'downloading')).toThrow('pull j of m: queued -> downloading is not a legal move');
    expect(j.state).toBe('done');
  });
});
