import { describe, expect, it } from 'vitest';
import { gbnfMatcher, random } from './gbnf-testing.js';
import { render, type Expr } from './grammar.js';
import { integerRange, sameLengthRange } from './int-range.js';

const asRegExp = (expr: Expr) => gbnfMatcher(`root ::= ${render(expr)}\n`);
const range = (lo: bigint | undefined, hi: bigint | undefined) => {
  const expr = integerRange(lo, hi);
  if (!expr) throw new Error('empty range');
  return asRegExp(expr);
};

describe('integerRange', () => {
  it('spells the digits a range needs, digit by digit', () => {
    expect(render(integerRange(17n, 342n)!)).toBe('"1" [7-9] | [2-9] [0-9] | [12] [0-9]{2} | "3" ([0-3] [0-9] | "4" [0-2])');
    expect(render(integerRange(0n, 120n)!)).toBe('"0" | [1-9] [0-9]? | "1" ([01] [0-9] | "20")');
    expect(render(integerRange(-5n, 5n)!)).toBe('"-" [1-5] | "0" | [1-5]');
    expect(render(sameLengthRange('1000', '1999'))).toBe('"1" [0-9]{3}');
  });

  it('admits exactly the integers of each range, no leading zeros, no "-0"', () => {
    const bounds = [-120n, -100n, -17n, -10n, -1n, 0n, 1n, 9n, 10n, 99n, 100n, 342n];
    for (const lo of bounds) {
      for (const hi of bounds.filter((b) => b >= lo)) {
        const re = range(lo, hi);
        for (let n = -400; n <= 400; n++) expect(re.test(String(n)), `${n} in [${lo}, ${hi}]`).toBe(BigInt(n) >= lo && BigInt(n) <= hi);
        for (const odd of ['-0', '00', '01', '-01', '+1', '1.0', '']) expect(re.test(odd), odd).toBe(false);
      }
    }
  });

  it('is exact at ±9007199254740991 and beyond safe integers', () => {
    const max = 9007199254740991n;
    const re = range(-max, max);
    for (const n of [max, -max, 0n, max - 1n, 1000000000000000n, -8999999999999999n]) expect(re.test(n.toString()), n.toString()).toBe(true);
    for (const n of [max + 1n, -max - 1n, 9007199254741000n, 10000000000000000n]) expect(re.test(n.toString()), n.toString()).toBe(false);
    const next = random(7);
    for (let i = 0; i < 2000; i++) {
      const n = BigInt(Math.floor((next() - 0.5) * 2 ** 55));
      expect(re.test(n.toString()), n.toString()).toBe(n >= -max && n <= max);
    }
    const huge = range(10n ** 30n + 7n, 10n ** 31n);
    expect(huge.test((10n ** 30n + 7n).toString())).toBe(true);
    expect(huge.test((10n ** 30n + 6n).toString())).toBe(false);
    expect(huge.test((10n ** 31n).toString())).toBe(true);
  });

  it('caps an open side at 16 digits (or the other bound\'s width), so digits cannot run on', () => {
    const atLeastZero = range(0n, undefined);
    expect(atLeastZero.test('9'.repeat(16))).toBe(true);
    expect(atLeastZero.test('1' + '0'.repeat(16))).toBe(false);
    expect(atLeastZero.test('-1')).toBe(false);
    const atMostMinusFive = range(undefined, -5n);
    expect(atMostMinusFive.test('-' + '9'.repeat(16))).toBe(true);
    expect(atMostMinusFive.test('-4')).toBe(false);
    const wide = range(10n ** 20n, undefined);
    expect(wide.test((10n ** 20n).toString())).toBe(true);
    expect(wide.test('9'.repeat(21))).toBe(true);
  });

  it('is null for an empty range', () => {
    expect(integerRange(5n, 4n)).toBeNull();
    expect(integerRange(0n, 0n)).toEqual({ kind: 'literal', text: '0' });
  });
});
