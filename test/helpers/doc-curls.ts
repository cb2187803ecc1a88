// The `curl` examples of the Markdown docs, as a reader sees them: every command in a fenced
// block (with its `\` continuations and heredoc, a `$ ` prompt or none) and every inline code
// span that is a whole command (it names a URL), each with the answer the doc shows beside it.
// test/docs-curl.test.ts runs them against a live gateway; this file only reads Markdown.
import { createHash } from 'node:crypto';

export interface DocCurl {
  /** The file, relative to the repository root. */
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  /** The command as one line: prompt, continuations and repeated blanks gone. */
  command: string;
  /** What the doc shows as its answer: the lines after it in a `$ ` block, or the next block. */
  shown: string;
  /** Stable across rewrapping and moves: the file and a hash of the command, then its first words. */
  id: string;
  inline: boolean;
}

const FENCE = /^\s*(```|~~~)/;
const PROMPT = /^\s*\$\s+/;
/** A command line: curl first, or curl after a pipe, `$(`, `&&` or `;` (a pipeline is run whole). */
const CURL_LINE = /(^|[|;&(]\s*)curl\s/;
/** An inline span that is a command, not a mention of a flag (`curl -X POST`): it names where to. */
const INLINE_CURL = /`(curl\s[^`]*(?::\/\/|localhost:|…\/)[^`]*)`/g;

export const oneLine = (text: string) => text.replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();

export function curlId(file: string, command: string): string {
  const hash = createHash('sha256').update(command).digest('hex').slice(0, 8);
  return `${file}#${hash} ${command.split(' ').slice(0, 6).join(' ')}`;
}

interface Block {
  start: number;
  lines: string[];
}

/** Fenced blocks with the line of their first content line; `after` is the next block when only blank lines lie between. */
function blocks(lines: readonly string[]): { block: Block; next?: Block }[] {
  const found: { block: Block; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !FENCE.test(lines[end]!)) end++;
    found.push({ block: { start, lines: lines.slice(start, end) }, end });
    i = end;
  }
  return found.map(({ block, end }, k) => {
    const following = found[k + 1];
    const adjacent = following && lines.slice(end + 1, following.block.start - 1).every((l) => l.trim() === '');
    return { block, ...(adjacent && { next: following.block }) };
  });
}

/** The commands of one block; in a block with prompts, the lines up to the next prompt are the answer. */
function commandsIn(block: Block, next: Block | undefined) {
  const prompted = block.lines.some((l) => PROMPT.test(l));
  const out: { line: number; text: string; shown: string }[] = [];
  for (let i = 0; i < block.lines.length; i++) {
    const raw = block.lines[i]!;
    if (prompted && !PROMPT.test(raw)) continue;
    const first = raw.replace(PROMPT, '');
    if (!CURL_LINE.test(first)) continue;
    const parts = [first];
    let j = i;
    while (parts.at(-1)!.trimEnd().endsWith('\\') && j + 1 < block.lines.length) parts.push(block.lines[++j]!);
    const heredoc = /<<-?\s*'?"?(\w+)'?"?/.exec(parts.join('\n'));
    if (heredoc) while (j + 1 < block.lines.length && block.lines[j]!.trim() !== heredoc[1]) parts.push(block.lines[++j]!);
    let k = j + 1;
    const answer: string[] = [];
    while (prompted && k < block.lines.length && !PROMPT.test(block.lines[k]!)) answer.push(block.lines[k++]!);
    const inBlock = answer.join('\n').trim();
    // The next block is this command's answer only when the command ends its own block.
    const shown = inBlock || (j === block.lines.length - 1 && next ? next.lines.join('\n').trim() : '');
    out.push({ line: block.start + i + 1, text: heredoc ? parts.join('\n') : oneLine(parts.join('\n')), shown });
    i = j;
  }
  return out;
}

/** Every curl example of one Markdown file. */
export function docCurls(file: string, markdown: string): DocCurl[] {
  const lines = markdown.split('\n');
  const found: DocCurl[] = [];
  const fenced = new Set<number>();
  for (const { block, next } of blocks(lines)) {
    for (let i = block.start - 1; i <= block.start + block.lines.length; i++) fenced.add(i);
    for (const c of commandsIn(block, next)) found.push({ file, line: c.line, command: c.text, shown: c.shown, id: curlId(file, c.text), inline: false });
  }
  // Inline spans may wrap across lines: read paragraphs outside the fences as one text.
  let paragraph: { start: number; text: string } | undefined;
  const flush = () => {
    for (const match of paragraph?.text.matchAll(INLINE_CURL) ?? []) {
      const command = oneLine(match[1]!);
      const line = paragraph!.start + paragraph!.text.slice(0, match.index).split('\n').length - 1;
      found.push({ file, line, command, shown: '', id: curlId(file, command), inline: true });
    }
    paragraph = undefined;
  };
  lines.forEach((text, i) => {
    if (fenced.has(i) || text.trim() === '') return flush();
    if (paragraph) paragraph.text += `\n${text}`;
    else paragraph = { start: i + 1, text };
  });
  flush();
  return found.sort((a, b) => a.line - b.line);
}

/**
 * What the doc says the answer is, from what it shows: an error envelope (its code, and the
 * keys of its details), a stream (server-sent events: the kind of its first line), or a
 * success (JSON when it shows JSON, with the top-level keys it shows). Nothing shown: a success.
 */
export type Expected =
  | { kind: 'error'; code: string; keys: string[] }
  | { kind: 'stream'; first?: 'comment' | 'field' }
  | { kind: 'ok'; json: boolean; keys: string[] };

const ELIDED = '…';

function shownObject(shown: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(shown);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const keysOf = (value: unknown) => (value && typeof value === 'object' ? Object.keys(value).filter((k) => k !== ELIDED) : []);

export function expected(example: Pick<DocCurl, 'command' | 'shown'>): Expected {
  const shown = example.shown;
  if (/\s-N\s/.test(` ${example.command} `) || /^(:|data:|id:|event:)/.test(shown)) {
    return { kind: 'stream', ...(shown && { first: shown.startsWith(':') ? 'comment' : 'field' }) };
  }
  const code = /^\{\s*"error"\s*:\s*\{\s*"code"\s*:\s*"([^"]+)"/.exec(shown)?.[1];
  const object = shownObject(shown);
  if (code) return { kind: 'error', code, keys: keysOf((object?.error as { details?: unknown } | undefined)?.details) };
  return { kind: 'ok', json: /^[[{]/.test(shown), keys: keysOf(object) };
}
