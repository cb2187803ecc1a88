import { describe, expect, it } from 'vitest';
import { foldApplyAnswer, foldApplyEvent, fractionDone, IDLE } from './apply-progress.js';

const slot = (name: string, ok = true) => ({ type: 'stack.apply.slot', data: { stack: 'pair', slot: name, runtime: 'load', ok, state: ok ? 'ready' : 'error', ms: 5 } });

describe('apply progress', () => {
  it('follows started, committed, each slot and completed for its own stack only', () => {
    let p = foldApplyEvent(IDLE, 'pair', { type: 'stack.apply.started', data: { stack: 'pair', creates: ['b'], unloads: ['old'], slots: ['a', 'b'] } });
    expect(p).toMatchObject({ phase: 'started', expected: ['old', 'a', 'b'] });
    p = foldApplyEvent(p, 'pair', { type: 'stack.apply.committed', data: { stack: 'pair', hash: 'h', commit_ms: 1 } });
    expect(p.phase).toBe('committed');
    p = foldApplyEvent(p, 'pair', slot('a'));
    p = foldApplyEvent(p, 'other', slot('b'));
    expect(fractionDone(p)).toBeCloseTo(1 / 3);
    p = foldApplyEvent(p, 'pair', slot('b', false));
    p = foldApplyEvent(p, 'pair', slot('b', true));
    expect(p.results.map((r) => r.slot)).toEqual(['a', 'b']);
    p = foldApplyEvent(p, 'pair', { type: 'stack.apply.completed', data: { stack: 'pair', failed: [], converge_ms: 9 } });
    expect(p).toMatchObject({ phase: 'done', events: 6 });
    expect(fractionDone(p)).toBe(1);
  });

  it('keeps an answer that came before the events, counting them still', () => {
    const done = foldApplyAnswer(IDLE, { results: [{ slot: 'a', runtime: 'load', ok: true, state: 'ready', ms: 1 }] } as never);
    const late = foldApplyEvent(done, 'pair', { type: 'stack.apply.started', data: { stack: 'pair', creates: [], unloads: [], slots: ['a'] } });
    expect(late).toEqual({ ...done, events: 1 });
  });

  it('records why an apply failed, and ignores other events', () => {
    expect(foldApplyEvent(IDLE, 'pair', { type: 'slot.state', data: { slot: 'x' } })).toBe(IDLE);
    expect(foldApplyEvent(IDLE, 'pair', { type: 'stack.apply.failed', data: { stack: 'pair', code: 'slot.config_error' } })).toMatchObject({ phase: 'failed', code: 'slot.config_error' });
  });

  it('takes the results from the answer when the events were missed', () => {
    const answer = { results: [{ slot: 'a', runtime: 'load', ok: true, state: 'ready', ms: 1 }, { slot: 'b', runtime: 'load', ok: false, state: 'error', ms: 1 }] } as never;
    const p = foldApplyAnswer(IDLE, answer);
    expect(p).toMatchObject({ phase: 'done', expected: ['a', 'b'], failed: ['b'] });
  });
});
