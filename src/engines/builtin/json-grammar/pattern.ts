// The regular-expression subset a `pattern` may use, parsed to a tree over code-point sets
// with ECMAScript's meaning under the `u` flag (what ajv and most validators use): literals,
// escapes, `.`, classes, groups, `|`, `* + ? {m} {m,} {m,n}`, and `^`/`$` at the ends of
// the top-level alternatives. Anything else (look-arounds, back-references, \b, \p{…}) is
// refused with PatternError. A pattern matches anywhere in the string, so a side without
// its anchor gets "any characters" added: the tree matches whole values only.
import { ALL_CODES, complement, normalize, ofChars, single, union, type CodeRanges } from './code-ranges.js';

export type Regex =
  | { kind: 'chars'; set: CodeRanges }
  | { kind: 'seq'; items: Regex[] }
  | { kind: 'alt'; options: Regex[] }
  | { kind: 'repeat'; item: Regex; min: number; max: number };

export class PatternError extends Error {}

/** The most a `{m,n}` may count, and the deepest group nesting: grammars, not tarpits. */
export const MAX_REPEAT = 1000;
const MAX_DEPTH = 64;

const DIGITS = normalize([[0x30, 0x39]]);
const WORD = normalize([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]]);
const SPACE = union(normalize([[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]]));
const LINE_ENDS = normalize([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);
const CLASS_ESCAPES: Record<string, CodeRanges> = { d: DIGITS, D: complement(DIGITS), w: WORD, W: complement(WORD), s: SPACE, S: complement(SPACE) };
const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, r: 0x0d, f: 0x0c, v: 0x0b };
const SYNTAX = '^$\\.*+?()[]{}|/';

export const anyChars = (): Regex => ({ kind: 'repeat', item: { kind: 'chars', set: ALL_CODES }, min: 0, max: Infinity });
const sequence = (items: Regex[]): Regex => (items.length === 1 ? items[0]! : { kind: 'seq', items });

class Parser {
  private at = 0;
  private readonly text: string[];

  constructor(source: string) {
    this.text = [...source];
  }

  private peek = (offset = 0): string | undefined => this.text[this.at + offset];
  private eat(c: string): boolean {
    if (this.peek() !== c) return false;
    this.at++;
    return true;
  }
  private fail(what: string): never {
    throw new PatternError(`${what} at position ${this.at} is not supported`);
  }

  /** The whole pattern: top-level alternatives, each anchored or not at either end. */
  parse(): Regex {
    const options: Regex[] = [];
    for (;;) {
      const anchoredStart = this.eat('^');
      const items = this.sequence(0, true);
      const anchoredEnd = this.eat('$');
      if (this.peek() !== undefined && this.peek() !== '|') this.fail(this.peek() === '$' || this.peek() === '^' ? 'an anchor inside the pattern' : `"${this.peek()}"`);
      options.push(sequence([...(anchoredStart ? [] : [anyChars()]), ...items, ...(anchoredEnd ? [] : [anyChars()])]));
      if (this.peek() === undefined) break;
      this.at++;
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private alternation(depth: number): Regex {
    const options = [sequence(this.sequence(depth, false))];
    while (this.peek() === '|') {
      this.at++;
      options.push(sequence(this.sequence(depth, false)));
    }
    return options.length === 1 ? options[0]! : { kind: 'alt', options };
  }

  private sequence(depth: number, topLevel: boolean): Regex[] {
    const items: Regex[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      if (c === '$' && topLevel && (this.peek(1) === undefined || this.peek(1) === '|')) break;
      items.push(this.quantified(this.atom(depth)));
    }
    return items;
  }

  private atom(depth: number): Regex {
    const c = this.peek()!;
    this.at++;
    if (c === '(') {
      if (depth >= MAX_DEPTH) this.fail('nesting this deep');
      if (this.peek() === '?') {
        if (this.peek(1) !== ':') this.fail('a look-around or named group');
        this.at += 2;
      }
      const inner = this.alternation(depth + 1);
      if (this.peek() !== ')') this.fail('an unclosed group');
      this.at++;
      return inner;
    }
    if (c === '[') return { kind: 'chars', set: this.charClass() };
    if (c === '.') return { kind: 'chars', set: complement(LINE_ENDS) };
    if (c === '\\') return { kind: 'chars', set: this.escape(false) };
    if ('^$'.includes(c)) this.fail('an anchor inside the pattern');
    if ('*+?{}])'.includes(c)) this.fail(`a stray "${c}"`);
    return { kind: 'chars', set: ofChars(c) };
  }

  private quantified(item: Regex): Regex {
    const c = this.peek();
    let bounds: [number, number] | null = null;
    if (c === '*') bounds = [0, Infinity];
    else if (c === '+') bounds = [1, Infinity];
    else if (c === '?') bounds = [0, 1];
    if (bounds) this.at++;
    else if (c === '{') bounds = this.braces();
    if (!bounds) return item;
    this.eat('?'); // lazy: the same strings match, only which match differs
    if ('*+?{'.includes(this.peek() ?? '-')) this.fail('a quantifier after a quantifier');
    return { kind: 'repeat', item, min: bounds[0], max: bounds[1] };
  }

  private braces(): [number, number] {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.at).join(''));
    if (!match) this.fail('a "{" that is not a {m}, {m,} or {m,n} quantifier');
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
    if (min > max) this.fail(`{${min},${max}} (min above max)`);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT)) this.fail(`a count above ${MAX_REPEAT}`);
    this.at += match[0].length;
    return [min, max];
  }

  private charClass(): CodeRanges {
    const negated = this.eat('^');
    const parts: CodeRanges[] = [];
    while (this.peek() !== ']') {
      if (this.peek() === undefined) this.fail('an unclosed "["');
      const from = this.classAtom();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.at++;
        const to = this.classAtom();
        if (from.length !== 1 || to.length !== 1 || from[0]![0] !== from[0]![1] || to[0]![0] !== to[0]![1]) this.fail('a range between classes');
        if (from[0]![0] > to[0]![0]) this.fail('a range out of order');
        parts.push([[from[0]![0], to[0]![0]]]);
      } else parts.push(from);
    }
    this.at++;
    const set = union(...parts);
    return negated ? complement(set) : set;
  }

  private classAtom(): CodeRanges {
    const c = this.peek()!;
    this.at++;
    if (c === '\\') return this.escape(true);
    return ofChars(c);
  }

  private escape(inClass: boolean): CodeRanges {
    const c = this.peek();
    if (c === undefined) this.fail('a trailing "\\"');
    this.at++;
    if (CLASS_ESCAPES[c]) return CLASS_ESCAPES[c];
    if (CONTROL_ESCAPES[c] !== undefined) return single(CONTROL_ESCAPES[c]);
    if (c === '0' && !/[0-9]/.test(this.peek() ?? '')) return single(0);
    if (c === 'b' && inClass) return single(0x08);
    if (c === 'x') return single(this.hex(2));
    if (c === 'u') return single(this.unicodeEscape());
    if (SYNTAX.includes(c) || (inClass && c === '-')) return ofChars(c);
    return this.fail(`the escape "\\${c}"`);
  }

  private hex(width: number): number {
    const digits = this.text.slice(this.at, this.at + width).join('');
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) this.fail('a malformed hex escape');
    this.at += width;
    return parseInt(digits, 16);
  }

  private unicodeEscape(): number {
    if (this.peek() === '{') {
      const match = /^\{([0-9a-fA-F]{1,6})\}/.exec(this.text.slice(this.at).join(''));
      const code = match ? parseInt(match[1]!, 16) : NaN;
      if (!match || code > 0x10ffff) this.fail('a malformed \\u{…} escape');
      this.at += match[0].length;
      return code;
    }
    const code = this.hex(4);
    // A surrogate pair written as two escapes is one character, as under the u flag.
    if (code >= 0xd800 && code <= 0xdbff && this.peek() === '\\' && this.peek(1) === 'u') {
      const low = parseInt(this.text.slice(this.at + 2, this.at + 6).join(''), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.at += 6;
        return 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    return code;
  }
}

/** `pattern` as a tree matching whole values; throws PatternError outside the subset. */
export function parsePattern(pattern: string): Regex {
  return new Parser(pattern).parse();
}

/** The shortest and longest value a tree matches, in characters (Infinity: no limit). */
export function lengthRange(regex: Regex): [number, number] {
  switch (regex.kind) {
    case 'chars': return [1, 1];
    case 'seq': return regex.items.map(lengthRange).reduce(([a, b], [c, d]) => [a + c, b + d], [0, 0]);
    case 'alt': return regex.options.map(lengthRange).reduce(([a, b], [c, d]) => [Math.min(a, c), Math.max(b, d)]);
    case 'repeat': {
      const [lo, hi] = lengthRange(regex.item);
      return [lo * regex.min, regex.max === 0 || hi === 0 ? 0 : hi * regex.max];
    }
  }
}
