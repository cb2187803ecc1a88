import { describe, expect, it } from 'vitest';
import { gbnfMatcher } from './gbnf-testing.js';
import { SchemaProblem, jsonSchemaGrammar } from './index.js';
import { PatternError, parsePattern } from './pattern.js';

/** Every string up to `length` characters over `alphabet`. */
function stringsOver(alphabet: readonly string[], length: number): string[] {
  let level = [''];
  const all = [''];
  for (let i = 0; i < length; i++) {
    level = level.flatMap((s) => alphabet.map((c) => s + c));
    all.push(...level);
  }
  return all;
}

/** Short strings over many kinds of character, longer ones over a few. */
const CANDIDATES = [...new Set([
  ...stringsOver(['a', 'b', 'c', 'Z', '0', '7', '-', '.', ' ', '"', '\\', '\n', 'é', '😀'], 3),
  ...stringsOver(['a', 'b', 'c', '-'], 5),
])];

/** The grammar, over the JSON text of a string, against JavaScript's own reading of the pattern (u flag). */
function expectSameAsRegExp(pattern: string, lengths: { minLength?: number; maxLength?: number } = {}) {
  const grammar = gbnfMatcher(jsonSchemaGrammar({ type: 'string', pattern, ...lengths }, 'schema'));
  const reference = new RegExp(pattern, 'u');
  const [min, max] = [lengths.minLength ?? 0, lengths.maxLength ?? Infinity];
  for (const s of CANDIDATES) {
    const length = [...s].length;
    expect(grammar.test(JSON.stringify(s)), `${JSON.stringify(s)} against /${pattern}/ ${JSON.stringify(lengths)}`).toBe(reference.test(s) && length >= min && length <= max);
  }
}

describe('patterns', () => {
  it('match exactly what JavaScript matches, anchored or not', () => {
    const patterns = [
      '^[A-Z]{3}-[0-9]{2,4}$', '^[a-c]{3}-[0-9]{1,2}$', 'ab', '^a|b$', '^(a|bc)*$', '^(?:a?)*$', '^(a*)*b$', '^[^a-c]+$', '^.?.$', '^\\d+(\\.\\d{1,2})?$',
      '^"\\\\$', '^[\\s\\S]{0,3}$', '^\\w{2}\\W$', '^a{0,2}b{2,}$', '^(ab|a)(c|bcd)$', '^\\u00e9\\x61$', '^[\\u{1F600}-\\u{1F64F}]a?$', '\\n', '^$', '',
      '^[-a]+$', '^[a-]$', '^(a?){2,3}b$', '^(?:a|b?)+c?$', '^[^\\d\\s]*$', '^a+?b??$', '^(?:\\.|-)+$', '^\\uD83D\\uDE00$', '^\\0?a$', '^[\\b]?a$', 'c$', '^(|a)b$',
    ];
    for (const pattern of patterns) expectSameAsRegExp(pattern);
  });

  it('with minLength/maxLength: the pattern\'s strings of those lengths only', () => {
    expectSameAsRegExp('a', { maxLength: 3 });
    expectSameAsRegExp('^[a-c]*$', { minLength: 2, maxLength: 3 });
    expectSameAsRegExp('^(ab|a)+$', { minLength: 3 });
    expectSameAsRegExp('^.*"$', { minLength: 1, maxLength: 2 });
    expectSameAsRegExp('^\\d+|[a-c]$', { maxLength: 2 });
    expectSameAsRegExp('^[A-Z]{3}-[0-9]{2,4}$', { maxLength: 6 });
  });

  it('translate construct by construct where the lengths add nothing', () => {
    expect(jsonSchemaGrammar({ type: 'string', pattern: '^[A-Z]{3}-[0-9]{2,4}$' }, 's')).toBe('root ::= "\\"" [A-Z]{3} "-" [0-9]{2,4} "\\""\n');
    expect(jsonSchemaGrammar({ type: 'string', pattern: '^(a|bc)+$', minLength: 1 }, 's')).toBe('root ::= "\\"" ("a" | "bc")+ "\\""\n');
  });

  it('refuse what is outside the subset, naming the pattern', () => {
    const refused = ['(?=a)', '(?!a)b', '(?<=a)b', '(?<n>a)', '(a)\\1', '\\bword', 'a\\B', '\\p{L}', 'a{2,1}', 'a**', 'a{', 'a}', ']', 'a^b', 'a$b', '(^a)', 'a{1001}', '(a', '[a', '[z-a]', '[\\d-z]', '\\c', '\\', '\\q', '\\-'];
    for (const pattern of refused) {
      expect(() => parsePattern(pattern), pattern).toThrow(PatternError);
      let problem: unknown;
      try {
        jsonSchemaGrammar({ type: 'object', properties: { code: { type: 'string', pattern } } }, 'response_format.json_schema.schema');
      } catch (error) {
        problem = error;
      }
      expect(problem, pattern).toBeInstanceOf(SchemaProblem);
      expect((problem as SchemaProblem).path).toBe('response_format.json_schema.schema.properties.code.pattern');
    }
  });

  it('refuse lengths the pattern can never meet', () => {
    expect(() => jsonSchemaGrammar({ type: 'string', pattern: '^[a-z]{5}$', maxLength: 4 }, 's')).toThrow(/outside minLength 0 and maxLength 4/);
    expect(() => jsonSchemaGrammar({ type: 'string', pattern: '^(ab){2}$|^a$', minLength: 2, maxLength: 3 }, 's')).toThrow(/matches no string/);
  });

  it('refuse a length-limited pattern whose automaton would be too large', () => {
    expect(() => jsonSchemaGrammar({ type: 'string', pattern: '^[a-z]{0,900}[0-9]{0,900}$', minLength: 1, maxLength: 1000 }, 's')).toThrow(/automaton states/);
  });
});
