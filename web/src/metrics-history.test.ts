import { describe, expect, it } from 'vitest';
import { HISTORY_SAMPLES, MetricsHistory } from './metrics-history.js';

describe('MetricsHistory', () => {
  it('keeps the newest samples per slot and tells its listeners', () => {
    const history = new MetricsHistory();
    let told = 0;
    history.subscribe(() => told++);
    for (let i = 0; i < HISTORY_SAMPLES + 5; i++) history.add('chat', i * 1000, i, i === 0 ? null : i * 10);
    history.add('embed', 0, 7, null);
    const chat = history.get('chat');
    expect(chat.t).toHaveLength(HISTORY_SAMPLES);
    expect(chat.t[0]).toBe(5);
    expect(chat.tokensPerSecond.at(-1)).toBe(HISTORY_SAMPLES + 4);
    expect(chat.ttftMs[0]).toBe(50);
    expect(history.get('embed').tokensPerSecond).toEqual([7]);
    expect(history.get('none').t).toEqual([]);
    expect(told).toBe(HISTORY_SAMPLES + 6);
  });

  it('gives a new snapshot only for the slot that changed', () => {
    const history = new MetricsHistory();
    history.add('a', 0, 1, null);
    history.add('b', 0, 1, null);
    const a = history.get('a');
    history.add('b', 1000, 2, null);
    expect(history.get('a')).toBe(a);
    expect(history.get('b').t).toEqual([0, 1]);
  });
});
