import { describe, expect, it } from 'vitest';
import type { MemoryItem } from '../protocol/memory.js';
import { applyRerank, byPrecedence, filterVisible, fuseBanks, withinBudget } from './recall.js';

const item = (id: string, over: Partial<MemoryItem> = {}): MemoryItem => ({
  id, text: `text of ${id}`, timestamp: '2026-01-01T00:00:00Z', dataset: null, tags: [], source: null, metadata: {}, score: 0, type: 'world', bank: 'shared', ...over,
});

describe('the recall pipeline', () => {
  it('fuses banks by score, keeping ties in order', () => {
    const fused = fuseBanks([[item('a', { score: 0.5 }), item('b', { score: 0.1 })], [item('c', { score: 0.3, bank: 'private__x' })]]);
    expect(fused.map((i) => i.id)).toEqual(['a', 'c', 'b']);
  });

  it("filters other agents' private items and types not asked for", () => {
    const items = [item('mine', { tags: ['agent:me', 'visibility:private'] }), item('theirs', { tags: ['agent:you', 'visibility:private'] }), item('obs', { type: 'observation' }), item('other', { type: 'mental_model' })];
    expect(filterVisible(items, 'me', ['world', 'observation']).map((i) => i.id)).toEqual(['mine', 'obs']);
  });

  it('applies a rerank with its scores, and keeps the fused order on a fallback', () => {
    const items = [item('a', { score: 0.9 }), item('b', { score: 0.8 }), item('c', { score: 0.7 })];
    const reranked = applyRerank(items, { order: [2, 0, 1], scores: new Map([[2, 5], [0, 3], [1, 1]]) });
    expect(reranked.map((i) => [i.id, i.score])).toEqual([['c', 5], ['a', 3], ['b', 1]]);
    expect(applyRerank(items, { fallback: 'timeout', reason: 'slow' }).map((i) => i.id)).toEqual(['a', 'b', 'c']);
  });

  it('puts observations and the shared bank first, then the higher score', () => {
    const items = [item('p', { bank: 'private__me', score: 9 }), item('s', { score: 1 }), item('o', { bank: 'private__me', type: 'observation', score: 2 })];
    expect(byPrecedence(items).map((i) => i.id)).toEqual(['o', 's', 'p']);
  });

  it('keeps what fits in the token budget, greedily (len/4 tokens each)', () => {
    const items = [item('big', { text: 'x'.repeat(400) }), item('small', { text: 'y'.repeat(40) }), item('mid', { text: 'z'.repeat(80) })];
    expect(withinBudget(items, 100).map((i) => i.id)).toEqual(['big']);
    expect(withinBudget(items, 99).map((i) => i.id)).toEqual(['small', 'mid']);
  });
});
