import { describe, expect, it } from 'vitest';
import type { PullJobPayload } from '../protocol/pulls.js';
import { pullModel, type ModelPulls } from './service.js';

/** A pull manager whose job for the model ends as `end` says (none: no job is known). */
function pullsEnding(end: Partial<PullJobPayload> | undefined): ModelPulls & { started: string[] } {
  const started: string[] = [];
  return {
    started,
    start: (modelId) => {
      started.push(modelId);
      return { job: { model_id: modelId, state: 'queued' } as PullJobPayload, existing: false };
    },
    wait: async (modelId) => (end ? ({ model_id: modelId, error: null, ...end } as PullJobPayload) : undefined),
  };
}

describe('pullModel (a stack apply that pulls)', () => {
  it('starts the pull under the model id and returns once the job is done (or none is known)', async () => {
    const pulls = pullsEnding({ state: 'done' });
    await pullModel(pulls, 'qwen3-0.6b');
    expect(pulls.started).toEqual(['qwen3-0.6b']);
    await expect(pullModel(pullsEnding(undefined), 'm')).resolves.toBeUndefined();
  });

  it('throws the failed job\'s error, and model.pull_failed for a cancelled one', async () => {
    await expect(pullModel(pullsEnding({ state: 'failed', error: { code: 'model.disk_full', message: 'no space' } }), 'm'))
      .rejects.toMatchObject({ code: 'model.disk_full', message: 'pulling m: no space', details: { model: 'm' } });
    await expect(pullModel(pullsEnding({ state: 'cancelled' }), 'm')).rejects.toMatchObject({ code: 'model.pull_failed', message: 'pulling m: cancelled' });
  });
});
