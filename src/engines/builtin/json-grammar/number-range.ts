// Numbers between bounds. A JSON number the grammar writes is parsed to the nearest double
// and compared with the bound's double; rounding is monotonic and a bound is a double, so a
// decimal whose exact value lies within the bounds always validates. Exclusive bounds become
// inclusive ones at the next double (a value must parse to something strictly beyond), and
// bounds are compared as exact decimals: every finite double has one.
//
// The grammar allows a subset of the valid numbers (the brief for bounded numbers): an
// integer part in range, with a fraction only where the whole unit after it stays in range;
// a range holding no integer (0.25..0.75) gets fixed-point values inside it instead. It never
// writes exponents or "-0".
import { alt, chars, literal, optional, repeat, seq, type Expr } from './grammar.js';
import { FREE_DIGITS, integerRange, naturalRange, sameLengthRange } from './int-range.js';

/** An exact decimal: units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

export interface NumericBounds {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** How many digits a fraction may have (llama.cpp's decimal part allows 16). */
const FRACTION_DIGITS = 15;
const DIGIT = chars([[0x30, 0x39]]);
const FRACTION = seq(literal('.'), repeat(DIGIT, 1, FRACTION_DIGITS));

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const maxOf = (...values: bigint[]): bigint => values.reduce((a, b) => (a > b ? a : b));
const minOf = (...values: bigint[]): bigint => values.reduce((a, b) => (a < b ? a : b));

/** The exact decimal value of a finite double (a non-integer one is m / 2^k = m·5^k / 10^k). */
export function exactDecimal(x: number): Decimal {
  if (Number.isInteger(x)) return { units: BigInt(x), scale: 0 };
  let scaled = x;
  let k = 0;
  // Doubling a double is exact, and a non-integer one is below 2^53, so this cannot overflow.
  while (!Number.isInteger(scaled)) {
    scaled *= 2;
    k++;
  }
  return { units: BigInt(scaled) * 5n ** BigInt(k), scale: k };
}

const floorDiv = (a: bigint, b: bigint): bigint => (a % b !== 0n && a < 0n ? a / b - 1n : a / b);
const ceilDiv = (a: bigint, b: bigint): bigint => (a % b !== 0n && a > 0n ? a / b + 1n : a / b);

/** floor(d · 10^places) */
export const floorAt = (d: Decimal, places: number): bigint =>
  places >= d.scale ? d.units * pow10(places - d.scale) : floorDiv(d.units, pow10(d.scale - places));
/** ceil(d · 10^places) */
export const ceilAt = (d: Decimal, places: number): bigint =>
  places >= d.scale ? d.units * pow10(places - d.scale) : ceilDiv(d.units, pow10(d.scale - places));

/** The smallest double above x (finite x). */
export function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] = bits[0]! + (x > 0 ? 1n : -1n);
  return new Float64Array(bits.buffer)[0]!;
}

export const nextDown = (x: number): number => -nextUp(-x);

/**
 * Unsigned decimals with a value in [low, high] (high undefined: unbounded, capped in
 * digits), by integer part. For negative numbers a bare "0" is left out: it would be "-0".
 */
function magnitudes(low: Decimal, high: Decimal | undefined, negative: boolean): Expr[] {
  let first = ceilAt(low, 0);
  const last = high === undefined ? pow10(Math.max(FREE_DIGITS, first.toString().length)) - 1n : floorAt(high, 0);
  // I.fff lies in [I, I + 1), so a fraction is allowed where I + 1 is still within high.
  const lastWithFraction = high === undefined ? last : last - 1n;
  const options: Expr[] = [];
  if (negative && first === 0n) {
    if (lastWithFraction >= 0n) options.push(seq(literal('0'), FRACTION));
    first = 1n;
  }
  if (first <= lastWithFraction) options.push(seq(naturalRange(first, lastWithFraction), optional(FRACTION)));
  const bareFrom = maxOf(first, lastWithFraction + 1n);
  if (bareFrom <= last) options.push(naturalRange(bareFrom, last));
  return options;
}

/** Unsigned decimals in [low, high] when no integer lies there: fixed-point at the fewest places that fit. */
function withinOneUnit(low: Decimal, high: Decimal): Expr {
  const whole = floorAt(low, 0);
  let places = 1;
  while (ceilAt(low, places) > floorAt(high, places)) places++;
  const base = whole * pow10(places);
  const [from, to] = [ceilAt(low, places) - base, floorAt(high, places) - base];
  const padded = (n: bigint) => n.toString().padStart(places, '0');
  const tails: Expr[] = [];
  // Below `to`, more digits stay under the next step, which is still within high.
  if (from < to) tails.push(seq(sameLengthRange(padded(from), padded(to - 1n)), repeat(DIGIT, 0, FRACTION_DIGITS)));
  tails.push(literal(padded(to)));
  return seq(literal(`${whole}.`), alt(...tails));
}

/** Decimal numbers in [lo, hi] (inclusive doubles; undefined = unbounded), or null when none. */
export function decimalRange(lo: number | undefined, hi: number | undefined): Expr | null {
  if (lo !== undefined && hi !== undefined && lo > hi) return null;
  const options: Expr[] = [];
  if (hi === undefined || hi >= 0) options.push(...magnitudes(exactDecimal(Math.max(lo ?? 0, 0)), hi === undefined ? undefined : exactDecimal(hi), false));
  if (lo === undefined || lo < 0) {
    const negatives = magnitudes(exactDecimal(hi === undefined || hi >= 0 ? 0 : -hi), lo === undefined ? undefined : exactDecimal(-lo), true);
    if (negatives.length > 0) options.push(seq(literal('-'), alt(...negatives)));
  }
  // Nothing yet means both bounds are set, on one side of zero, with no integer between.
  if (options.length === 0 && lo !== undefined && hi !== undefined) {
    options.push(hi < 0 ? seq(literal('-'), withinOneUnit(exactDecimal(-hi), exactDecimal(-lo))) : withinOneUnit(exactDecimal(lo), exactDecimal(hi)));
  }
  return alt(...options);
}

/** The tighter of an inclusive and an exclusive bound, as an inclusive double. */
function inclusive(bound: number | undefined, exclusive: number | undefined, step: (x: number) => number, tighter: (a: number, b: number) => number): number | undefined {
  const fromExclusive = exclusive === undefined ? undefined : step(exclusive);
  if (bound === undefined) return fromExclusive;
  return fromExclusive === undefined ? bound : tighter(bound, fromExclusive);
}

/** `type: number` within its bounds, or null when the bounds leave nothing. */
export function numberGrammar(b: NumericBounds): Expr | null {
  return decimalRange(inclusive(b.minimum, b.exclusiveMinimum, nextUp, Math.max), inclusive(b.maximum, b.exclusiveMaximum, nextDown, Math.min));
}

/**
 * `type: integer` within its bounds (fractional bounds round inwards), or null when none
 * fits. An exclusive bound steps to the next double first: above 2^53, 1e20 + 1 parses back
 * to 1e20, which is not above 1e20.
 */
export function integerGrammar(b: NumericBounds): Expr | null {
  const lows = [
    ...(b.minimum === undefined ? [] : [ceilAt(exactDecimal(b.minimum), 0)]),
    ...(b.exclusiveMinimum === undefined ? [] : [ceilAt(exactDecimal(nextUp(b.exclusiveMinimum)), 0)]),
  ];
  const highs = [
    ...(b.maximum === undefined ? [] : [floorAt(exactDecimal(b.maximum), 0)]),
    ...(b.exclusiveMaximum === undefined ? [] : [floorAt(exactDecimal(nextDown(b.exclusiveMaximum)), 0)]),
  ];
  return integerRange(lows.length ? maxOf(...lows) : undefined, highs.length ? minOf(...highs) : undefined);
}
