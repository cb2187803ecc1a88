// A table that fits a terminal's width: the columns that may wrap (a description, a list of
// names) are narrowed, widest first, until every line fits, and their cells wrap onto more
// lines at spaces (a word longer than its column is cut). Widths are what a terminal shows:
// an emoji takes two columns, a variation selector none. Pure.

/** Columns a string takes in a terminal: wide emoji 2, combining marks and joiners 0, the rest 1. */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    if (/\p{Mark}|\u200d/u.test(char)) continue;
    width += /\p{Extended_Pictographic}/u.test(char) && char.codePointAt(0)! > 0x2000 ? 2 : 1;
  }
  return width;
}

export const padEnd = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - textWidth(text)));

/** `text` as lines of at most `width` columns, broken at spaces; a longer word is cut. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of text.split(/ +/).filter(Boolean)) {
    while (textWidth(word) > width) {
      if (line) lines.push(line);
      line = '';
      const chars = [...word];
      let cut = 0;
      while (cut < chars.length && textWidth(chars.slice(0, cut + 1).join('')) <= width) cut++;
      lines.push(chars.slice(0, cut).join(''));
      word = chars.slice(cut).join('');
    }
    if (!word) continue;
    if (line && textWidth(`${line} ${word}`) > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

const GAP = 2;
/** A wrapping column is never made narrower than this, even if the line then runs over. */
const MIN_WRAP = 12;

/** The table's lines within `width` columns, wrapping only the `wrap` columns; the last column is not padded. */
export function fitTable(header: string[], rows: string[][], width: number, wrap: readonly number[]): string[] {
  const widths = header.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  const total = () => widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1);
  while (total() > width) {
    const widest = wrap.filter((i) => (widths[i] ?? 0) > Math.max(MIN_WRAP, textWidth(header[i] ?? ''))).sort((a, b) => widths[b]! - widths[a]!)[0];
    if (widest === undefined) break;
    widths[widest]!--;
  }
  const lines: string[] = [];
  for (const cells of [header, ...rows]) {
    const wrapped = cells.map((cell, i) => (wrap.includes(i) ? wrapText(cell, widths[i]!) : [cell]));
    const height = Math.max(...wrapped.map((w) => w.length));
    for (let at = 0; at < height; at++) {
      const parts = wrapped.map((w, i) => (i === cells.length - 1 ? (w[at] ?? '') : padEnd(w[at] ?? '', widths[i]!)));
      lines.push(parts.join(' '.repeat(GAP)).trimEnd());
    }
  }
  return lines;
}
