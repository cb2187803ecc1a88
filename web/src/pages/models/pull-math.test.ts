import { describe, expect, it } from 'vitest';
import type { PullJobPayload, PullState } from '../../../../src/protocol/pulls.js';
import { budgetMb, fitMark, formatBytes, formatEta, formatRate, isResumable, isRetryable, isTerminal, percent, refForQuant, suggestedModelId, withJob, withoutJob } from './pull-math.js';

const job = (model_id: string, state: PullState) => ({ model_id, state, files: [], error: null }) as unknown as PullJobPayload;

describe('pull figures', () => {
  it('reads bytes, rates and times', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.0 GiB');
    expect(formatBytes(300 * 1024 ** 2)).toBe('300 MiB');
    expect(formatRate(2 * 1024 ** 2)).toBe('2.0 MiB/s');
    expect(formatEta(null)).toBe('—');
    expect(formatEta(4.4)).toBe('4s');
    expect(formatEta(125)).toBe('2m 5s');
    expect(formatEta(3 * 3600 + 120)).toBe('3h 2m');
  });

  it('counts percent without passing 100 or dividing by nothing', () => {
    expect(percent(0, 0)).toBe(0);
    expect(percent(50, 200)).toBe(25);
    expect(percent(199, 200)).toBe(99);
    expect(percent(300, 200)).toBe(100);
  });

  it('knows which states end a pull and which can be resumed', () => {
    expect(isTerminal('done')).toBe(true);
    expect(isTerminal('downloading')).toBe(false);
    const file = { path: 'a.gguf', role: 'model' as const, size: 10, bytes_done: 4, state: 'waiting' as const };
    const listed = (state: PullState) => ({ ...job('a', state), files: [file] });
    expect(isResumable(listed('cancelled'))).toBe(true);
    expect(isResumable(listed('failed'))).toBe(true);
    expect(isResumable(listed('done'))).toBe(false);
  });

  it('a pull that stopped before its file list has nothing to resume: a retry when the network may cure it, nothing for a ref that names nothing', () => {
    const failed = (code: string) => ({ ...job('a', 'failed'), error: { code, message: 'no' } });
    expect(isResumable(failed('model.pull_failed'))).toBe(false);
    expect(isRetryable(failed('model.pull_failed'))).toBe(true);
    expect(isRetryable(job('a', 'cancelled'))).toBe(true);
    expect(isRetryable(failed('model.pull_invalid_ref'))).toBe(false);
    expect(isRetryable(failed('model.pull_not_found'))).toBe(false);
    expect(isRetryable(job('a', 'done'))).toBe(false);
    expect(isRetryable({ ...failed('model.pull_failed'), files: [{ path: 'a.gguf', role: 'model' as const, size: 1, bytes_done: 0, state: 'waiting' as const }] })).toBe(false);
  });

  it('forgets a dismissed job by its id', () => {
    const list = [{ ...job('a', 'failed'), id: 'j1' }, { ...job('b', 'done'), id: 'j2' }];
    expect(withoutJob(list, 'j1').map((j) => j.id)).toEqual(['j2']);
  });

  it('marks a quant by its size against the budget', () => {
    const GiB = 1024 ** 3;
    expect(fitMark(GiB, null).mark).toBe('unknown');
    expect(fitMark(GiB, 8192)).toEqual({ mark: 'fits', needMb: 1024 + 64 + 52 });
    expect(fitMark(GiB, 1200).mark).toBe('tight');
    expect(fitMark(GiB, 1000).mark).toBe('too-big');
  });

  it('adds free RAM and every GPU\'s VRAM', () => {
    expect(budgetMb(undefined)).toBeNull();
    expect(budgetMb({ host: { mem_available_mb: 1000 }, probe: null })).toBe(1000);
    expect(budgetMb({ host: { mem_available_mb: 1000 }, probe: { gpus: [{ vram_mb: 500 }, { vram_mb: null }] } })).toBe(1500);
  });

  it('derives the id and ref a pull uses', () => {
    expect(suggestedModelId('org/tiny-GGUF:Q8_0')).toBe('tiny-q8_0');
    expect(suggestedModelId('not a ref')).toBe('');
    expect(refForQuant('org/tiny-GGUF', { quant: 'Q8_0', file: 'tiny-Q8_0.gguf' })).toBe('org/tiny-GGUF:Q8_0');
    expect(refForQuant('org/x', { quant: null, file: 'dir/x.gguf' })).toBe('org/x/dir/x.gguf');
  });

  it('puts a job in its model\'s place', () => {
    const list = [job('a', 'done'), job('b', 'downloading')];
    expect(withJob(list, job('b', 'done')).map((j) => j.state)).toEqual(['done', 'done']);
    expect(withJob(list, job('c', 'queued')).map((j) => j.model_id)).toEqual(['a', 'b', 'c']);
  });
});
