// Integers between two bounds as digit-range rules, the way llama.cpp's converter writes
// them: a grammar cannot compare numbers, but it can spell every digit string from "17" to
// "342" (`"1" [7-9] | [2-9] [0-9] | [1-2] [0-9] [0-9] | "3" [0-3] [0-9] | "34" [0-2]`).
// Bounds are bigints so ±9007199254740991 and beyond are exact. No leading zeros, no "-0".
import { alt, chars, literal, repeat, seq, type Expr } from './grammar.js';

/** How many digits an integer part may have where the schema sets no bound (llama.cpp's 16). */
export const FREE_DIGITS = 16;

const digit = (from: number, to: number): Expr => chars([[0x30 + from, 0x30 + to]]);
const anyDigits = (count: number): Expr => repeat(digit(0, 9), count, count);
const digitCount = (n: bigint): number => (n < 0n ? -n : n).toString().length;
const power = (exponent: number): bigint => 10n ** BigInt(exponent);

/** Digit strings of one length from `lo` to `hi` (equal lengths, lo <= hi), a digit at a time. */
export function sameLengthRange(lo: string, hi: string): Expr {
  if (lo === hi) return literal(lo);
  if (/^0*$/.test(lo) && /^9*$/.test(hi)) return anyDigits(lo.length);
  const [a, b] = [Number(lo[0]), Number(hi[0])];
  const rest = lo.length - 1;
  if (a === b) return seq(literal(lo[0]!), sameLengthRange(lo.slice(1), hi.slice(1)));
  // The first digit's middle values take any tail; the two ends narrow their own tails.
  const lowTailIsFree = /^0*$/.test(lo.slice(1));
  const highTailIsFree = /^9*$/.test(hi.slice(1));
  const options: Expr[] = [];
  if (!lowTailIsFree) options.push(seq(literal(lo[0]!), sameLengthRange(lo.slice(1), '9'.repeat(rest))));
  const [first, last] = [lowTailIsFree ? a : a + 1, highTailIsFree ? b : b - 1];
  if (first <= last) options.push(seq(digit(first, last), anyDigits(rest)));
  if (!highTailIsFree) options.push(seq(literal(hi[0]!), sameLengthRange('0'.repeat(rest), hi.slice(1))));
  return alt(...options);
}

/** 0 <= lo <= hi: one alternative per digit count, runs of whole lengths (all of 10..99, say) merged. */
export function naturalRange(lo: bigint, hi: bigint): Expr {
  const options: Expr[] = [];
  // "0" is the one number with a leading zero; the rest start with 1-9, so 1-9 is a whole length.
  if (lo === 0n) {
    options.push(literal('0'));
    if (hi === 0n) return options[0]!;
    lo = 1n;
  }
  let wholeLengths: [number, number] | null = null;
  const flushWhole = () => {
    if (wholeLengths) options.push(seq(digit(1, 9), repeat(digit(0, 9), wholeLengths[0] - 1, wholeLengths[1] - 1)));
    wholeLengths = null;
  };
  for (let length = digitCount(lo); length <= digitCount(hi); length++) {
    const smallest = power(length - 1);
    const [from, to] = [lo > smallest ? lo : smallest, hi < power(length) - 1n ? hi : power(length) - 1n];
    if (from === smallest && to === power(length) - 1n) {
      wholeLengths = wholeLengths ? [wholeLengths[0], length] : [length, length];
      continue;
    }
    flushWhole();
    options.push(sameLengthRange(from.toString(), to.toString()));
  }
  flushWhole();
  return alt(...options);
}

/**
 * Integers from `lo` to `hi`; an absent bound is replaced by the widest number of
 * FREE_DIGITS digits (or the other bound's digit count, if larger), so a model cannot run
 * on digits forever. Returns null when the range is empty.
 */
export function integerRange(lo: bigint | undefined, hi: bigint | undefined): Expr | null {
  const width = Math.max(FREE_DIGITS, lo === undefined ? 0 : digitCount(lo), hi === undefined ? 0 : digitCount(hi));
  const from = lo ?? -(power(width) - 1n);
  const to = hi ?? power(width) - 1n;
  if (from > to) return null;
  const options: Expr[] = [];
  if (from < 0n) options.push(seq(literal('-'), naturalRange(to < 0n ? -to : 1n, -from)));
  if (to >= 0n) options.push(naturalRange(from > 0n ? from : 0n, to));
  return alt(...options);
}
