import { describe, expect, it } from 'vitest';
import { quoteUnitWord, quoteWord, tokenize } from './shell-words.js';

const WORDS = ['plain/path-1.gguf', 'with space', "it's", 'a"b\\c', '$HOME', ''];

describe('quoting', () => {
  it('a shell line of quoted words splits back into the same words', () => {
    expect(tokenize(WORDS.map(quoteWord).join(' '))).toEqual(WORDS);
    expect(quoteWord('plain/path-1.gguf')).toBe('plain/path-1.gguf');
  });

  it("a systemd word is double-quoted with \" and \\ escaped (systemd has no shell's '\\'')", () => {
    expect(quoteUnitWord('/opt/svc/bin')).toBe('/opt/svc/bin');
    expect(quoteUnitWord('/home/a b/it\'s')).toBe('"/home/a b/it\'s"');
    expect(quoteUnitWord('a"b\\c')).toBe('"a\\"b\\\\c"');
  });
});
