import { describe, expect, it } from 'vitest';
import { headExtent, MIN_PART_BYTES, partsOf } from './parts.js';

const MiB = 1024 * 1024;

describe('parts of a download', () => {
  it('are fixed by the size: one below 16 MiB, at most 16, covering every byte once', () => {
    expect(partsOf('/b', 5 * MiB).map((p) => [p.start, p.length, p.file])).toEqual([[0, 5 * MiB, '/b.part1of1']]);
    const six = partsOf('/b', 48 * MiB + 3);
    expect(six).toHaveLength(6);
    expect(six.reduce((sum, p) => sum + p.length, 0)).toBe(48 * MiB + 3);
    expect(six.every((p, i) => i === 0 || p.start === six[i - 1]!.start + six[i - 1]!.length)).toBe(true);
    expect(partsOf('/b', 10_000 * MiB)).toHaveLength(16);
    expect(MIN_PART_BYTES).toBe(8 * MiB);
  });

  it('the head counts up to the end of the last part wholly in it', () => {
    const parts = partsOf('/b', 32 * MiB); // 4 × 8 MiB
    expect(headExtent(parts, 0)).toEqual({ joined: 0, length: 0 });
    expect(headExtent(parts, 3 * MiB)).toEqual({ joined: 0, length: 3 * MiB });
    expect(headExtent(parts, 8 * MiB)).toEqual({ joined: 1, length: 8 * MiB });
    expect(headExtent(parts, 13 * MiB)).toEqual({ joined: 1, length: 8 * MiB }); // an append of part 2 cut off
    expect(headExtent(parts, 24 * MiB)).toEqual({ joined: 3, length: 24 * MiB });
    expect(headExtent(parts, 32 * MiB)).toEqual({ joined: 4, length: 32 * MiB });
  });
});
