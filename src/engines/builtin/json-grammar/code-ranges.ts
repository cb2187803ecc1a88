// Sets of Unicode code points as sorted, disjoint, non-adjacent [lo, hi] ranges: what a
// regular-expression class means, and what a JSON string may hold raw.

export type CodeRanges = ReadonlyArray<readonly [number, number]>;

export const MAX_CODE = 0x10ffff;
export const ALL_CODES: CodeRanges = [[0, MAX_CODE]];

/** Sorted and merged. */
export function normalize(ranges: Iterable<readonly [number, number]>): CodeRanges {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

export const single = (code: number): CodeRanges => [[code, code]];
export const ofChars = (text: string): CodeRanges => normalize([...text].map((ch) => [ch.codePointAt(0)!, ch.codePointAt(0)!] as const));
export const union = (...sets: CodeRanges[]): CodeRanges => normalize(sets.flat());

export function complement(set: CodeRanges): CodeRanges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of set) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE) out.push([next, MAX_CODE]);
  return out;
}

export const intersect = (a: CodeRanges, b: CodeRanges): CodeRanges => complement(union(complement(a), complement(b)));
export const subtract = (a: CodeRanges, b: CodeRanges): CodeRanges => intersect(a, complement(b));
export const isEmpty = (set: CodeRanges): boolean => set.length === 0;
export const contains = (set: CodeRanges, code: number): boolean => set.some(([lo, hi]) => code >= lo && code <= hi);

/** Every code point of a (small) set; callers check the size first. */
export function codesOf(set: CodeRanges): number[] {
  return set.flatMap(([lo, hi]) => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
}

export const size = (set: CodeRanges): number => set.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
