import { describe, expect, it } from 'vitest';
import { StopScanner, type TextChunk } from './stop-scanner.js';

/** Push pieces one by one; what came out, and whether a stop ended it. */
function scan(stops: string[], pieces: string[]): { out: string[]; stopped: boolean } {
  const scanner = new StopScanner<number>(stops);
  const out: string[] = [];
  const take = (chunks: TextChunk<number>[]) => out.push(...chunks.map((c) => c.text));
  for (const [i, text] of pieces.entries()) {
    const result = scanner.push({ text, items: [i] });
    take(result.release);
    if (result.stopped) return { out, stopped: true };
  }
  take(scanner.flush());
  return { out, stopped: false };
}

describe('StopScanner', () => {
  it('without stop strings every piece goes out as it comes', () => {
    expect(scan([], ['a', 'b', ''])).toEqual({ out: ['a', 'b', ''], stopped: false });
  });

  it('holds text that may begin a stop string, releases it when it does not, cuts where it does', () => {
    expect(scan(['END'], ['one ', 'E', 'N', 'x'])).toEqual({ out: ['one ', 'E', 'N', 'x'], stopped: false });
    expect(scan(['END'], ['one ', 'E', 'N', 'D', 'more'])).toEqual({ out: ['one '], stopped: true });
    // A stop string inside one piece, and one across pieces: the text before it goes out, shortened.
    expect(scan(['END'], ['oneENDtwo'])).toEqual({ out: ['one'], stopped: true });
    expect(scan(['\n\n'], ['a\n', '\nb'])).toEqual({ out: ['a'], stopped: true });
  });

  it('the earliest of several stop strings wins; a stop string at the very start leaves nothing', () => {
    expect(scan(['b', 'abc'], ['xab', 'c'])).toEqual({ out: ['xa'], stopped: true });
    expect(scan(['.'], ['.', 'a'])).toEqual({ out: [], stopped: true });
  });

  it('items go out with their chunk, also with the chunk a stop string shortens', () => {
    const scanner = new StopScanner<string>(['!']);
    expect(scanner.push({ text: 'hi', items: ['t1'] })).toEqual({ release: [{ text: 'hi', items: ['t1'] }], stopped: false });
    expect(scanner.push({ text: ' you!x', items: ['t2'] })).toEqual({ release: [{ text: ' you', items: ['t2'] }], stopped: true });
  });

  it('at the end, text held for a stop string that never came is released', () => {
    expect(scan(['STOP'], ['a', 'ST'])).toEqual({ out: ['a', 'ST'], stopped: false });
  });
});
