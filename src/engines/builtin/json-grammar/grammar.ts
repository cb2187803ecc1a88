// The compiler's GBNF as data: expressions (literals, character ranges, rule references,
// sequences, alternatives, bounded repetition) and the set of named rules they live in.
// Keeping it as data, not text, lets the checks in grammar-checks.ts (left recursion, rules
// that can never finish) look at it, and lets equal rules be shared by their rendered text.
import { type CodeRanges } from './code-ranges.js';

export type Expr =
  | { kind: 'literal'; text: string }
  | { kind: 'chars'; ranges: CodeRanges }
  | { kind: 'rule'; name: string }
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'alt'; options: Expr[] }
  | { kind: 'repeat'; item: Expr; min: number; max: number };

/** The empty string. */
export const EMPTY: Expr = { kind: 'seq', items: [] };

export const literal = (text: string): Expr => (text === '' ? EMPTY : { kind: 'literal', text });
/** One character from `ranges`; a single one is written as a literal (and joins its neighbours in a seq). */
export const chars = (ranges: CodeRanges): Expr =>
  ranges.length === 1 && ranges[0]![0] === ranges[0]![1] ? literal(String.fromCodePoint(ranges[0]![0])) : { kind: 'chars', ranges };
export const ref = (name: string): Expr => ({ kind: 'rule', name });

export function seq(...items: Expr[]): Expr {
  const flat: Expr[] = [];
  for (const item of items.flatMap((each) => (each.kind === 'seq' ? each.items : [each]))) {
    const last = flat[flat.length - 1];
    if (last?.kind === 'literal' && item.kind === 'literal') flat[flat.length - 1] = literal(last.text + item.text);
    else flat.push(item);
  }
  return flat.length === 1 ? flat[0]! : { kind: 'seq', items: flat };
}

/** Alternatives; an empty list is a grammar that matches nothing, which callers must refuse first. */
export function alt(...options: Expr[]): Expr {
  const seen = new Set<string>();
  const flat = options.flatMap((option) => (option.kind === 'alt' ? option.options : [option])).filter((option) => {
    const text = render(option);
    return !seen.has(text) && seen.add(text);
  });
  if (flat.length === 0) throw new Error('alt() of nothing: the caller must refuse an empty choice first');
  return flat.length === 1 ? flat[0]! : { kind: 'alt', options: flat };
}

/** `item` from `min` to `max` times (max may be Infinity). */
export function repeat(item: Expr, min: number, max: number): Expr {
  if (max === 0) return EMPTY;
  if (min === 1 && max === 1) return item;
  return { kind: 'repeat', item, min, max };
}

export const optional = (item: Expr): Expr => repeat(item, 0, 1);

const hex = (code: number, width: number) => code.toString(16).toUpperCase().padStart(width, '0');

/** One code point as GBNF writes it inside "..." or [...]: plain when safe, else an escape. */
function escapeCode(code: number, inClass: boolean): string {
  const ch = String.fromCodePoint(code);
  if (ch === '"' || ch === '\\' || (inClass && (ch === '[' || ch === ']'))) return `\\${ch}`;
  // In a class "-" and "^" mean something, and llama.cpp has no \- or \^ escapes.
  if (code >= 0x20 && code < 0x7f && !(inClass && (ch === '-' || ch === '^'))) return ch;
  if (code <= 0xff) return `\\x${hex(code, 2)}`;
  if (code <= 0xffff) return `\\u${hex(code, 4)}`;
  return `\\U${hex(code, 8)}`;
}

function renderLiteral(text: string): string {
  return `"${[...text].map((ch) => escapeCode(ch.codePointAt(0)!, false)).join('')}"`;
}

function renderChars(ranges: CodeRanges): string {
  const body = ranges.map(([lo, hi]) => {
    if (hi - lo < 2) return lo === hi ? escapeCode(lo, true) : escapeCode(lo, true) + escapeCode(hi, true);
    return `${escapeCode(lo, true)}-${escapeCode(hi, true)}`;
  }).join('');
  return `[${body}]`;
}

function quantifier(min: number, max: number): string {
  if (min === 0 && max === 1) return '?';
  if (min === 0 && max === Infinity) return '*';
  if (min === 1 && max === Infinity) return '+';
  if (max === Infinity) return `{${min},}`;
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

/** GBNF text of an expression. */
export function render(expr: Expr): string {
  switch (expr.kind) {
    case 'literal': return renderLiteral(expr.text);
    case 'chars': return renderChars(expr.ranges);
    case 'rule': return expr.name;
    case 'seq': return expr.items.length === 0 ? '""' : expr.items.map((item) => (item.kind === 'alt' ? `(${render(item)})` : render(item))).join(' ');
    case 'alt': return expr.options.map(render).join(' | ');
    case 'repeat': {
      const inner = render(expr.item);
      const atom = expr.item.kind === 'seq' || expr.item.kind === 'alt' || expr.item.kind === 'repeat' ? `(${inner})` : inner;
      return atom + quantifier(expr.min, expr.max);
    }
  }
}

/** Every rule an expression names, directly. */
export function referencedRules(expr: Expr, into: string[] = []): string[] {
  switch (expr.kind) {
    case 'rule': into.push(expr.name); break;
    case 'seq': for (const item of expr.items) referencedRules(item, into); break;
    case 'alt': for (const option of expr.options) referencedRules(option, into); break;
    case 'repeat': referencedRules(expr.item, into); break;
    default: break;
  }
  return into;
}
