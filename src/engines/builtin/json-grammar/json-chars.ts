// One character of a JSON string's value, as the JSON text spells it. Schemas speak about
// the decoded value (a pattern's classes, minLength counts characters), the grammar about the
// text: a `"` in the value is `\"` in the text, a newline is `\n`. Each spelling here stands
// for exactly one character of the value, so counting spellings counts characters.
import { ALL_CODES, codesOf, intersect, isEmpty, normalize, subtract, union, type CodeRanges } from './code-ranges.js';
import { alt, chars, literal, repeat, seq, type Expr } from './grammar.js';

const CONTROLS: CodeRanges = [[0x00, 0x1f]];
const SURROGATES: CodeRanges = [[0xd800, 0xdfff]];
/** Written escaped: the quote, the backslash, control characters and DEL (as llama.cpp's converter does). */
const MUST_ESCAPE: CodeRanges = normalize([[0x00, 0x1f], [0x22, 0x22], [0x5c, 0x5c], [0x7f, 0x7f]]);
/** Written as themselves. UTF-8 cannot carry lone surrogates, so they are never written raw. */
export const RAW: CodeRanges = subtract(ALL_CODES, union(MUST_ESCAPE, SURROGATES));

const SHORT_ESCAPES = new Map<number, string>([[0x22, '\\"'], [0x5c, '\\\\'], [0x08, '\\b'], [0x0c, '\\f'], [0x0a, '\\n'], [0x0d, '\\r'], [0x09, '\\t']]);
const HEX: CodeRanges = normalize([[0x30, 0x39], [0x41, 0x46], [0x61, 0x66]]);

const escapeOf = (code: number): string => SHORT_ESCAPES.get(code) ?? `\\u${code.toString(16).padStart(4, '0')}`;

/**
 * The spellings of one character from `set`, or null when none can be written (a set of
 * lone surrogates only). Escapes are spelled one way each; a subset of JSON's, never wrong.
 */
export function encodedChar(set: CodeRanges): Expr | null {
  const options: Expr[] = [];
  const raw = intersect(set, RAW);
  if (!isEmpty(raw)) options.push(chars(raw));
  const escaped = intersect(set, MUST_ESCAPE);
  const allControls = isEmpty(subtract(CONTROLS, escaped));
  for (const code of codesOf(escaped)) {
    if (!allControls || code >= 0x20 || SHORT_ESCAPES.has(code)) options.push(literal(escapeOf(code)));
  }
  if (allControls) options.push(seq(literal('\\u00'), chars([[0x30, 0x31]]), chars(HEX)));
  return options.length === 0 ? null : alt(...options);
}

/**
 * Any one character, every way JSON may spell it but a surrogate `\u` escape (a pair would
 * be two spellings for one character and upset the count; a lone one is not text).
 */
export const ANY_JSON_CHAR: Expr = alt(
  chars(RAW),
  seq(literal('\\'), chars(normalize([[0x22, 0x22], [0x5c, 0x5c], [0x2f, 0x2f], [0x62, 0x62], [0x66, 0x66], [0x6e, 0x6e], [0x72, 0x72], [0x74, 0x74]]))),
  seq(literal('\\u'), alt(
    seq(chars(subtract(HEX, normalize([[0x44, 0x44], [0x64, 0x64]]))), repeat(chars(HEX), 3, 3)),
    seq(chars(normalize([[0x44, 0x44], [0x64, 0x64]])), chars([[0x30, 0x37]]), repeat(chars(HEX), 2, 2)),
  )),
);
