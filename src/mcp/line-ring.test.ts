import { describe, expect, it } from 'vitest';
import { LineRing } from './line-ring.js';

describe('the bounds of a tool server\'s stderr ring', () => {
  it('keeps the last `capacity` lines, each cut at 2000 characters', () => {
    const ring = new LineRing(3);
    ring.write('a\nb\nc\n');
    ring.write(`${'z'.repeat(5000)}\nd\n`);
    expect(ring.recent()).toEqual(['c', `${'z'.repeat(2000)}…`, 'd']);
  });

  it('takes a line that never ends as a line once it passes 8192 characters', () => {
    const ring = new LineRing(5);
    for (let i = 0; i < 10; i++) ring.write('q'.repeat(1000));
    expect(ring.recent()).toEqual([`${'q'.repeat(2000)}…`, 'q'.repeat(1000)]);
  });
});
