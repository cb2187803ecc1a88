import { describe, expect, it } from 'vitest';
import { gbnfMatcher, sampleGbnf } from './gbnf-testing.js';
import { render, type Expr } from './grammar.js';
import { exactDecimal, integerGrammar, nextDown, nextUp, numberGrammar, type NumericBounds } from './number-range.js';

const text = (expr: Expr | null) => {
  if (!expr) throw new Error('empty');
  return `root ::= ${render(expr)}\n`;
};

/** What ajv checks for these keywords, on the parsed double. */
const within = (x: number, b: NumericBounds) =>
  (b.minimum === undefined || x >= b.minimum) && (b.maximum === undefined || x <= b.maximum)
  && (b.exclusiveMinimum === undefined || x > b.exclusiveMinimum) && (b.exclusiveMaximum === undefined || x < b.exclusiveMaximum);

const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;
const VALUES = [-12345.678, -100, -3, -1, -0.75, -0.5, -0.1, -5e-324, 0, 5e-324, 0.1, 0.25, 0.3, 0.5, 0.75, 1, 1.5, 2, 99.99, 100, 2 ** 53 + 2, 1e20];
/** Candidate spellings around the interesting values. */
const CANDIDATES = [...new Set([
  ...VALUES.flatMap((v) => [v, nextUp(v), nextDown(v), v + 0.01, v - 0.01, v + 1, v - 1]).filter(Number.isFinite).map((v) => String(v)).filter((s) => JSON_NUMBER.test(s)),
  ...Array.from({ length: 121 }, (_, i) => ((i - 60) / 20).toFixed(2)),
  ...Array.from({ length: 41 }, (_, i) => String(i - 20)),
  '0.7499999999999999', '0.75', '0.7500000000000001', '-0', '-0.0', '1e5', '00', '0.', '.5',
])];

describe('numberGrammar', () => {
  it('admits only numbers within its bounds, and always some', () => {
    const cases: NumericBounds[] = [{ minimum: -1e300, maximum: 1e300 }, { exclusiveMinimum: 1e300 }];
    for (const lo of VALUES) for (const hi of VALUES.filter((v) => v >= lo)) cases.push({ minimum: lo, maximum: hi }, { exclusiveMinimum: lo, exclusiveMaximum: hi }, { minimum: lo, exclusiveMaximum: hi });
    for (const v of VALUES) cases.push({ minimum: v }, { exclusiveMaximum: v }, { exclusiveMinimum: v, maximum: nextUp(v) });
    let samples = 0;
    for (const bounds of cases) {
      // Empty only when no double lies within (nothing between -5e-324 and 0, exclusive).
      const lowest = bounds.exclusiveMinimum === undefined ? bounds.minimum ?? -Infinity : nextUp(bounds.exclusiveMinimum);
      const highest = bounds.exclusiveMaximum === undefined ? bounds.maximum ?? Infinity : nextDown(bounds.exclusiveMaximum);
      expect(numberGrammar(bounds) === null, JSON.stringify(bounds)).toBe(lowest > highest);
      if (lowest > highest) continue;
      const grammar = text(numberGrammar(bounds));
      const re = gbnfMatcher(grammar);
      for (const candidate of CANDIDATES) {
        if (re.test(candidate)) expect(JSON_NUMBER.test(candidate) && within(JSON.parse(candidate), bounds) && candidate !== '-0', `${candidate} in ${JSON.stringify(bounds)}`).toBe(true);
      }
      for (const sample of sampleGbnf(grammar, 1, 20)) {
        samples++;
        expect(JSON_NUMBER.test(sample) && within(JSON.parse(sample), bounds), `${sample} in ${JSON.stringify(bounds)}`).toBe(true);
      }
    }
    expect(samples).toBeGreaterThan(5_000);
  });

  it('gives a range without integers fixed-point values inside it', () => {
    expect(render(numberGrammar({ minimum: 0.25, maximum: 0.75 })!)).toBe('"0." ([3-6] [0-9]{0,15} | "7")');
    expect(render(numberGrammar({ exclusiveMinimum: -1, exclusiveMaximum: 0 })!)).toBe('"-0." ([1-8] [0-9]{0,15} | "9")');
    const single = gbnfMatcher(text(numberGrammar({ minimum: 0.1, maximum: 0.1 })));
    expect(single.test('0.1000000000000000055511151231257827021181583404541015625')).toBe(true);
    expect(single.test('0.1')).toBe(false); // its value is not exactly the double's, though it parses to it
  });

  it('allows fractions where the whole unit stays in range, integers at the ends', () => {
    const re = gbnfMatcher(text(numberGrammar({ minimum: -2, maximum: 3 })));
    for (const ok of ['-2', '-1.99', '-1', '-0.5', '0', '0.123', '2.999', '3']) expect(re.test(ok), ok).toBe(true);
    for (const no of ['-2.01', '3.01', '4', '-3']) expect(re.test(no), no).toBe(false);
  });

  it('without bounds: 16 integer digits, 15 fraction digits, no exponent', () => {
    const re = gbnfMatcher(text(numberGrammar({})));
    for (const ok of ['0', '-0.5', '9999999999999999', '-1.000000000000001', '123.25']) expect(re.test(ok), ok).toBe(true);
    for (const no of ['99999999999999999', '1e5', '-0', '01', '1.', '0.1234567890123456']) expect(re.test(no), no).toBe(false);
  });

  it('is null when the bounds leave nothing', () => {
    expect(numberGrammar({ minimum: 2, maximum: 1 })).toBeNull();
    expect(numberGrammar({ minimum: 1, exclusiveMaximum: 1 })).toBeNull();
    expect(numberGrammar({ exclusiveMinimum: 1, maximum: 1 })).toBeNull();
  });
});

describe('integerGrammar', () => {
  it('rounds fractional and exclusive bounds inwards', () => {
    const re = gbnfMatcher(text(integerGrammar({ minimum: 0.5, exclusiveMaximum: 10 })));
    expect([0, 1, 9, 10].map((n) => re.test(String(n)))).toEqual([false, true, true, false]);
    const negative = gbnfMatcher(text(integerGrammar({ exclusiveMinimum: -1.5, maximum: -0.5 })));
    expect([-2, -1, 0].map((n) => negative.test(String(n)))).toEqual([false, true, false]);
    expect(integerGrammar({ minimum: 0.2, maximum: 0.8 })).toBeNull();
    expect(integerGrammar({ exclusiveMinimum: 3, exclusiveMaximum: 4 })).toBeNull();
  });

  it('keeps exclusive bounds beyond 2^53, where neighbouring integers parse to the same double', () => {
    const grammar = text(integerGrammar({ exclusiveMinimum: 1e20, exclusiveMaximum: 1e21 }));
    for (const sample of sampleGbnf(grammar, 8, 200)) expect(JSON.parse(sample) > 1e20 && JSON.parse(sample) < 1e21, sample).toBe(true);
    expect(gbnfMatcher(grammar).test('100000000000000000001')).toBe(false);
  });
});

describe('exact decimals', () => {
  it('are the doubles\' exact values', () => {
    expect(exactDecimal(0.1)).toEqual({ units: 1000000000000000055511151231257827021181583404541015625n, scale: 55 });
    expect(exactDecimal(-2.5)).toEqual({ units: -25n, scale: 1 });
    expect(exactDecimal(1e300).units).toBe(BigInt(1e300));
    expect(nextUp(1)).toBe(1 + Number.EPSILON);
    expect(nextDown(0)).toBe(-Number.MIN_VALUE);
    expect(nextUp(-Number.MIN_VALUE)).toBe(-0);
  });
});
