// Comments through a rewrite of a TOML file (`svc config migrate`): the TOML writer keeps
// none, so each comment block is carried to where it stood: above the file's first line (a
// header such as the one `npm start` writes), above the table or the key it preceded, at the
// end of a key's line, or at the end of the file. A block whose table or key the rewrite
// removed or renamed cannot be placed: it is counted, and the caller says the backup has it.
// Pure: text in, text out.

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/;
const KEY = /^\s*([A-Za-z0-9_.\-"' ]+?)\s*=\s*(.*)$/;
const COMMENT = /^\s*#/;

const clean = (name: string) => name.replace(/\s*\.\s*/g, '.').replace(/["']/g, '');

/** A value's trailing comment (`1 # why`), outside quotes; null when it has none. */
function trailingComment(value: string): string | null {
  let quote: string | null = null;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (quote) {
      if (char === '\\' && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '#') return value.slice(i);
  }
  return null;
}

interface Anchored {
  /** Comment lines above each table (`[name]`) or key (`table.key`); `^` is the file's first line, `$` its end. */
  above: Map<string, string[]>;
  /** A key's own trailing comment. */
  inline: Map<string, string>;
}

/** Walks TOML lines, calling `line` with the anchor each line is (a table, a key, or null for anything else). */
function walk(text: string, line: (anchor: string | null, raw: string, value: string | null) => void): void {
  let table = '';
  let inString: string | null = null;
  for (const raw of text.split('\n')) {
    if (inString) {
      if (raw.includes(inString)) inString = null;
      line(null, raw, null);
      continue;
    }
    const header = HEADER.exec(raw);
    const key = header ? null : KEY.exec(raw);
    if (header) table = clean(header[1]!);
    const anchor = header ? `[${table}]` : key ? `${table}.${clean(key[1]!)}` : null;
    const value = key ? key[2]! : null;
    const triple = value && /^("""|''')/.exec(value.trim());
    if (triple && value!.trim().indexOf(triple[1]!, 3) === -1) inString = triple[1]!;
    line(anchor, raw, value);
  }
}

function anchorComments(text: string): Anchored {
  const above = new Map<string, string[]>();
  const inline = new Map<string, string>();
  let block: string[] = [];
  let first = true;
  walk(text, (anchor, raw, value) => {
    if (COMMENT.test(raw) && anchor === null) return void block.push(raw.trim());
    // The file's opening comments (up to its first blank line or first key) are its header.
    if (first && block.length > 0 && (raw.trim() === '' || anchor !== null)) {
      above.set('^', block);
      block = [];
    }
    if (raw.trim() === '') return;
    first = false;
    if (anchor !== null && block.length > 0) above.set(anchor, [...(above.get(anchor) ?? []), ...block]);
    block = [];
    const comment = value === null ? null : trailingComment(value);
    if (anchor !== null && comment) inline.set(anchor, comment);
  });
  if (block.length > 0) above.set('$', block);
  return { above, inline };
}

/** `rewritten` with the comments of `original` carried over; `dropped`: the comment lines that found no place. */
export function carryComments(original: string, rewritten: string): { text: string; dropped: number } {
  const { above, inline } = anchorComments(original);
  const out: string[] = [...(above.get('^') ?? [])];
  if (out.length > 0) out.push('');
  const placed = new Set<string>(['^', '$']);
  walk(rewritten.replace(/\n$/, ''), (anchor, raw) => {
    if (anchor !== null && above.has(anchor)) {
      out.push(...above.get(anchor)!);
      placed.add(anchor);
    }
    const comment = anchor === null ? undefined : inline.get(anchor);
    out.push(comment && trailingComment(raw) === null ? `${raw} ${comment}` : raw);
    if (comment) placed.add(`inline:${anchor}`);
  });
  if (above.has('$')) out.push('', ...above.get('$')!);
  let dropped = 0;
  for (const [anchor, lines] of above) if (!placed.has(anchor)) dropped += lines.length;
  for (const anchor of inline.keys()) if (!placed.has(`inline:${anchor}`)) dropped += 1;
  return { text: `${out.join('\n')}\n`, dropped };
}
