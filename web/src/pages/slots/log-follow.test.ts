import { describe, expect, it } from 'vitest';
import { appendLines } from './log-follow.js';

describe('engine log lines', () => {
  it('keeps the newest lines up to the bound', () => {
    expect(appendLines(['a', 'b'], ['c'], 5)).toEqual(['a', 'b', 'c']);
    expect(appendLines(['a', 'b', 'c'], ['d', 'e'], 3)).toEqual(['c', 'd', 'e']);
    expect(appendLines([], ['a', 'b', 'c', 'd'], 2)).toEqual(['c', 'd']);
  });
});
