import { describe, expect, it } from 'vitest';
import { lowWater, oldestBeyond, overCaps } from './prune-oldest.js';

describe('pruning the oldest', () => {
  const rows = [1, 2, 3, 4, 5].map((n) => ({ id: `r${n}`, bytes: 100 }));

  it('keeps a tenth of a cap free, at least one', () => {
    expect(lowWater(10)).toBe(9);
    expect(lowWater(50_000)).toBe(45_000);
    expect(lowWater(1)).toBe(0);
  });

  it('picks the oldest until both counts are under their low-water marks', () => {
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 10, maxBytes: 10_000 })).toEqual([]);
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 5, maxBytes: 10_000 })).toEqual(['r1']); // at a cap: down to its low-water mark
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 4, maxBytes: 10_000 })).toEqual(['r1', 'r2']);
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 100, maxBytes: 300 })).toEqual(['r1', 'r2', 'r3']);
  });

  it('never picks the entry spared', () => {
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 1, maxBytes: 10_000 }, 'r5')).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(oldestBeyond(rows, { rows: 5, bytes: 500 }, { maxRows: 1, maxBytes: 10_000 }, 'r1')).toEqual(['r2', 'r3', 'r4', 'r5']);
  });

  it('reads no further than it needs', () => {
    let read = 0;
    function* counted() {
      for (const row of rows) {
        read += 1;
        yield row;
      }
    }
    oldestBeyond(counted(), { rows: 5, bytes: 500 }, { maxRows: 4, maxBytes: 10_000 });
    expect(read).toBe(3);
  });

  it('says when a cap is passed', () => {
    expect(overCaps({ rows: 5, bytes: 10 }, { maxRows: 5, maxBytes: 10 })).toBe(false);
    expect(overCaps({ rows: 6, bytes: 10 }, { maxRows: 5, maxBytes: 10 })).toBe(true);
    expect(overCaps({ rows: 5, bytes: 11 }, { maxRows: 5, maxBytes: 10 })).toBe(true);
  });
});
