import { describe, expect, it } from 'vitest';
import { LogRing } from './log-ring.js';

describe('LogRing', () => {
  it('joins lines split across chunks, keeps the newest, marks its own notes', () => {
    const ring = new LogRing({ capacity: 3 });
    ring.write('one\ntw');
    ring.write('o\r\nthree\n');
    ring.note('exited');
    ring.write('partial');
    expect(ring.recent()).toEqual(['three', '[svc] exited', 'partial']);
    expect(ring.whole()).toEqual(['two', 'three', '[svc] exited']);
    expect(ring.tail()).toBe('two\nthree\npartial');
  });

  it('keeps at most `capacity` lines, each cut at lineMax', () => {
    const ring = new LogRing({ capacity: 3, lineMax: 10 });
    expect(ring.write(`a\nb\nc\n${'z'.repeat(50)}\nd\n`)).toEqual(['a', 'b', 'c', `${'z'.repeat(10)}…`, 'd']);
    expect(ring.recent()).toEqual(['c', `${'z'.repeat(10)}…`, 'd']);
  });

  it('takes a line that never ends as a line once it passes partialMax', () => {
    const ring = new LogRing({ capacity: 5, lineMax: 2000, partialMax: 8192 });
    for (let i = 0; i < 10; i++) ring.write('q'.repeat(1000));
    expect(ring.recent()).toEqual([`${'q'.repeat(2000)}…`, 'q'.repeat(1000)]);
  });

  it('forgets the unfinished line, or everything', () => {
    const ring = new LogRing();
    ring.write('done\nhalf');
    ring.dropPartial();
    expect(ring.recent()).toEqual(['done']);
    ring.clear();
    expect(ring.recent()).toEqual([]);
  });
});
