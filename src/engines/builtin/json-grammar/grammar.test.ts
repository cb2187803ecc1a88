import { describe, expect, it } from 'vitest';
import { normalize, ofChars } from './code-ranges.js';
import { gbnfMatcher } from './gbnf-testing.js';
import { grammarProblem } from './grammar-checks.js';
import { EMPTY, alt, chars, literal, ref, render, repeat, seq } from './grammar.js';
import { ANY_JSON_CHAR, encodedChar } from './json-chars.js';
import { Rules } from './rules.js';

describe('render', () => {
  it('escapes what GBNF reads specially, and only that', () => {
    expect(render(literal('say "hi" \\ 1'))).toBe('"say \\"hi\\" \\\\ 1"');
    expect(render(literal('tab\tnew\nline é 😀'))).toBe('"tab\\x09new\\x0Aline \\xE9 \\U0001F600"');
    expect(render(chars(normalize([[0x2d, 0x2d], [0x5b, 0x5e], [0x22, 0x22], [0x61, 0x7a], [0x4e00, 0x9fff]])))).toBe('[\\"\\x2D\\[-\\x5Ea-z\\u4E00-\\u9FFF]');
    expect(render(chars(ofChars('x')))).toBe('"x"');
  });

  it('merges neighbouring literals, parenthesises where precedence needs it', () => {
    expect(render(seq(literal('a'), literal('b'), alt(literal('c'), literal('d')), repeat(seq(literal(','), ref('x')), 0, Infinity)))).toBe('"ab" ("c" | "d") ("," x)*');
    expect(render(seq(repeat(ref('x'), 2, 2), repeat(ref('y'), 1, 3), repeat(ref('z'), 4, Infinity), repeat(ref('w'), 0, 1)))).toBe('x{2} y{1,3} z{4,} w?');
    expect(render(EMPTY)).toBe('""');
    expect(() => alt()).toThrow();
  });
});

describe('rules', () => {
  it('share equal bodies and give unique names', () => {
    const rules = new Rules();
    const a = rules.define('item', alt(literal('x'), literal('y')));
    expect(rules.define('other', alt(literal('x'), literal('y')))).toEqual(a);
    expect(rules.reserve('item')).toBe('item-2');
    expect(rules.reserve('root')).toBe('root-2');
    expect(rules.reserve('a.b c')).toBe('a-b-c');
  });
});

describe('grammarProblem', () => {
  it('finds rules that can never finish, and left recursion through empty prefixes', () => {
    const endless = new Rules();
    const loop = endless.reserve('loop', 'schema.$defs.loop');
    endless.fill(loop, seq(literal('['), ref(loop), literal(']')));
    // Even as one choice of several: a model that takes it could never finish.
    expect(grammarProblem(endless, alt(ref(loop), literal('x')))).toEqual({ rule: 'loop', message: expect.stringMatching(/no finite value/) });
    endless.fill(loop, seq(literal('['), repeat(ref(loop), 0, 1), literal(']')));
    expect(grammarProblem(endless, ref(loop))).toBeNull();

    const left = new Rules();
    const a = left.reserve('a', 'schema.$defs.a');
    const b = left.reserve('b');
    left.fill(a, alt(seq(ref(b), literal('x')), literal('y')));
    left.fill(b, seq(repeat(literal('z'), 0, 1), ref(a)));
    expect(grammarProblem(left, ref(a))?.message).toMatch(/left recursion/);

    const emptyLoop = new Rules();
    const c = emptyLoop.reserve('c');
    emptyLoop.fill(c, seq(repeat(repeat(literal('q'), 0, 1), 0, Infinity), literal('.')));
    expect(grammarProblem(emptyLoop, ref(c))?.message).toMatch(/left recursion/);
    emptyLoop.fill(c, seq(repeat(repeat(literal('q'), 0, 1), 0, 3), literal('.')));
    expect(grammarProblem(emptyLoop, ref(c))).toBeNull();
  });
});

describe('JSON string characters', () => {
  const one = (set: Parameters<typeof encodedChar>[0]) => gbnfMatcher(`root ::= ${render(encodedChar(set)!)}\n`);

  it('spell each character of a set once, escaping what JSON must', () => {
    const quoteAndA = one(ofChars('"a'));
    expect(['a', '\\"'].every((s) => quoteAndA.test(s))).toBe(true);
    expect(['"', '\\u0022', 'b'].some((s) => quoteAndA.test(s))).toBe(false);
    const controls = one(normalize([[0, 0x1f]]));
    for (let code = 0; code < 0x20; code++) expect(controls.test(JSON.stringify(String.fromCharCode(code)).slice(1, -1)), String(code)).toBe(true);
    expect(controls.test('\n')).toBe(false);
    expect(encodedChar(normalize([[0xd800, 0xdfff]]))).toBeNull();
  });

  it('any character: every JSON spelling but surrogate escapes', () => {
    const any = gbnfMatcher(`root ::= ${render(ANY_JSON_CHAR)}\n`);
    for (const ok of ['a', 'é', '😀', '\\/', '\\n', '\\u00e9', '\\uFFFF', '\\"', '\\\\']) expect(any.test(ok), ok).toBe(true);
    for (const no of ['"', '\\', '\n', '\\ud83d', '\\uDC00', '\\x41', '\\u12']) expect(any.test(no), no).toBe(false);
  });
});
