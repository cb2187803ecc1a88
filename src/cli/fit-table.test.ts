import { describe, expect, it } from 'vitest';
import { fitTable, textWidth, wrapText } from './fit-table.js';

describe('a table that fits the terminal', () => {
  it('measures what a terminal shows: an emoji two columns, its variation selector none', () => {
    expect(textWidth('saber')).toBe(5);
    expect(textWidth('⚡ saber')).toBe(8);
    expect(textWidth('🛠️ forge')).toBe(8);
    expect(textWidth('© x')).toBe(3);
  });

  it('wraps at spaces and cuts a word longer than the column', () => {
    expect(wrapText('an MoE agent with MTP', 10)).toEqual(['an MoE', 'agent with', 'MTP']);
    expect(wrapText('abcdefghijkl', 5)).toEqual(['abcde', 'fghij', 'kl']);
    expect(wrapText('', 5)).toEqual(['']);
  });

  it('narrows only the wrapping columns until every line fits, and pads by display width', () => {
    const rows = [['⚡ a', 'x'.repeat(10), 'one two three four five six seven eight nine ten eleven twelve']];
    const lines = fitTable(['NAME', 'ID', 'DESCRIPTION'], rows, 40, [2]);
    expect(lines.every((line) => textWidth(line) <= 40)).toBe(true);
    expect(lines[0]).toBe('NAME  ID          DESCRIPTION');
    expect(lines[1]).toBe('⚡ a  xxxxxxxxxx  one two three four');
    expect(lines.slice(2).every((line) => line.startsWith(' '.repeat(18)))).toBe(true);
    // Wide enough: nothing wraps.
    expect(fitTable(['NAME', 'ID', 'DESCRIPTION'], rows, 200, [2])).toHaveLength(2);
  });
});
