// A parsed pattern (pattern.ts) as grammar. Two ways:
// - directly, when minLength/maxLength add nothing to what the pattern already allows: each
//   construct becomes its GBNF twin (`x{2,4}` stays `x{2,4}`);
// - otherwise as an automaton whose states also count characters (a Glushkov automaton, one
//   state per character class in the pattern, times the count so far), so the grammar admits
//   exactly the strings of the pattern whose length is in range. Its size is bounded below.
import { isEmpty, type CodeRanges } from './code-ranges.js';
import { EMPTY, alt, ref, repeat, seq, type Expr } from './grammar.js';
import { PatternError, type Regex } from './pattern.js';
import type { Rules } from './rules.js';

/** One character of the value from `set`, as JSON text (json-chars.ts, shared as rules). */
export type EncodeChars = (set: CodeRanges) => Expr;

/** The most automaton states a length-limited pattern may take. */
export const MAX_STATES = 4000;

export function nullable(regex: Regex): boolean {
  switch (regex.kind) {
    case 'chars': return false;
    case 'seq': return regex.items.every(nullable);
    case 'alt': return regex.options.some(nullable);
    case 'repeat': return regex.min === 0 || nullable(regex.item);
  }
}

/** The non-empty strings of `regex`, or null when it matches only the empty string. */
function nonEmpty(regex: Regex): Regex | null {
  switch (regex.kind) {
    case 'chars': return regex;
    case 'alt': {
      const options = regex.options.map(nonEmpty).filter((r): r is Regex => r !== null);
      return options.length === 0 ? null : { kind: 'alt', options };
    }
    case 'seq': {
      const options: Regex[] = [];
      for (let i = 0; i < regex.items.length; i++) {
        const head = nonEmpty(regex.items[i]!);
        if (head) options.push({ kind: 'seq', items: [head, ...regex.items.slice(i + 1)] });
        if (!nullable(regex.items[i]!)) break;
      }
      return options.length === 0 ? null : { kind: 'alt', options };
    }
    case 'repeat': {
      const item = nonEmpty(regex.item);
      if (!item || regex.max === 0) return null;
      // Some non-empty item must occur; with a nullable item the others may all be empty.
      return nullable(regex.item) ? { kind: 'repeat', item, min: 1, max: regex.max } : { kind: 'repeat', item: regex.item, min: Math.max(1, regex.min), max: regex.max };
    }
  }
}

/** The pattern construct by construct. An unbounded loop over something that may be empty is
 * rewritten over its non-empty part: llama.cpp would see `x*` there as left recursion. */
export function directGrammar(regex: Regex, encode: EncodeChars): Expr {
  switch (regex.kind) {
    case 'chars': return encode(regex.set);
    case 'seq': return seq(...regex.items.map((item) => directGrammar(item, encode)));
    case 'alt': return alt(...regex.options.map((option) => directGrammar(option, encode)));
    case 'repeat': {
      if (regex.max === Infinity && nullable(regex.item)) {
        const item = nonEmpty(regex.item);
        return item ? repeat(directGrammar(item, encode), 0, Infinity) : EMPTY;
      }
      return repeat(directGrammar(regex.item, encode), regex.min, regex.max);
    }
  }
}

/** A pattern tree with every {m,n} written out, each character class a numbered position. */
type Linear = { kind: 'pos'; at: number } | { kind: 'seq' | 'alt'; parts: Linear[] } | { kind: 'star' | 'opt'; part: Linear };

function linearize(regex: Regex, maxLength: number, sets: CodeRanges[]): Linear {
  const grow = (): void => {
    if (sets.length > MAX_STATES) throw new PatternError(`needs more than ${MAX_STATES} automaton states with these length limits`);
  };
  switch (regex.kind) {
    case 'chars': sets.push(regex.set); grow(); return { kind: 'pos', at: sets.length - 1 };
    case 'seq': return { kind: 'seq', parts: regex.items.map((item) => linearize(item, maxLength, sets)) };
    case 'alt': return { kind: 'alt', parts: regex.options.map((option) => linearize(option, maxLength, sets)) };
    case 'repeat': {
      // Each copy of a non-empty item takes a character, so copies beyond maxLength are
      // never used (more than maxLength required ones fail as surely); a loop stays a loop,
      // the count in the states bounds it.
      const min = nullable(regex.item) ? 0 : Math.min(regex.min, maxLength + 1);
      const max = regex.max === Infinity ? Infinity : Math.min(regex.max, maxLength);
      const parts: Linear[] = Array.from({ length: min }, () => linearize(regex.item, maxLength, sets));
      if (max === Infinity) parts.push({ kind: 'star', part: linearize(regex.item, maxLength, sets) });
      else {
        let tail: Linear | null = null;
        for (let i = min; i < max; i++) tail = { kind: 'opt', part: tail ? { kind: 'seq', parts: [linearize(regex.item, maxLength, sets), tail] } : linearize(regex.item, maxLength, sets) };
        if (tail) parts.push(tail);
      }
      return { kind: 'seq', parts };
    }
  }
}

interface Glushkov { empty: boolean; first: Set<number>; last: Set<number> }

/** Which positions can start and end a match, and `follow`: which can come after which. */
function glushkov(node: Linear, follow: Array<Set<number>>): Glushkov {
  const link = (from: Set<number>, to: Set<number>) => from.forEach((p) => to.forEach((q) => follow[p]!.add(q)));
  switch (node.kind) {
    case 'pos': return { empty: false, first: new Set([node.at]), last: new Set([node.at]) };
    case 'alt': {
      const parts = node.parts.map((part) => glushkov(part, follow));
      return { empty: parts.some((p) => p.empty), first: new Set(parts.flatMap((p) => [...p.first])), last: new Set(parts.flatMap((p) => [...p.last])) };
    }
    case 'seq': return node.parts.map((part) => glushkov(part, follow)).reduce((a, b) => {
      link(a.last, b.first);
      return { empty: a.empty && b.empty, first: a.empty ? new Set([...a.first, ...b.first]) : a.first, last: b.empty ? new Set([...a.last, ...b.last]) : b.last };
    }, { empty: true, first: new Set<number>(), last: new Set<number>() });
    case 'star':
    case 'opt': {
      const inner = glushkov(node.part, follow);
      if (node.kind === 'star') link(inner.last, inner.first);
      return { ...inner, empty: true };
    }
  }
}

/**
 * The strings of `regex` from minLength to maxLength characters (maxLength may be Infinity),
 * as one rule per live (position, count) pair; the count stops at minLength when there is no
 * maximum. Throws PatternError when no string fits or the automaton would be too large.
 */
export function lengthLimitedGrammar(regex: Regex, minLength: number, maxLength: number, encode: EncodeChars, rules: Rules, hint: string): Expr {
  const sets: CodeRanges[] = [];
  const tree = linearize(regex, maxLength, sets);
  const follow = sets.map(() => new Set<number>());
  const { empty, first, last } = glushkov(tree, follow);
  const START = sets.length; // the state before any character
  follow.push(first);
  const ceiling = maxLength === Infinity ? minLength : maxLength;
  const stepCount = (count: number) => (maxLength === Infinity ? Math.min(count + 1, minLength) : count + 1);
  const accepts = (pos: number, count: number) => count >= minLength && (pos === START ? empty : last.has(pos));
  const key = (pos: number, count: number) => pos * (ceiling + 1) + count;
  const split = (state: number) => [Math.floor(state / (ceiling + 1)), state % (ceiling + 1)] as const;

  // Every reachable state with its successors, then those that can still reach an end.
  const edges = new Map<number, number[]>();
  const queue = [key(START, 0)];
  edges.set(queue[0]!, []);
  for (let i = 0; i < queue.length; i++) {
    const [pos, count] = split(queue[i]!);
    if (count + 1 > ceiling && maxLength !== Infinity) continue;
    for (const next of follow[pos]!) {
      if (isEmpty(sets[next]!)) continue;
      const target = key(next, stepCount(count));
      edges.get(queue[i]!)!.push(target);
      if (!edges.has(target)) {
        if (edges.size >= MAX_STATES) throw new PatternError(`needs more than ${MAX_STATES} automaton states with these length limits`);
        edges.set(target, []);
        queue.push(target);
      }
    }
  }
  const live = new Set(queue.filter((s) => accepts(...split(s))));
  for (let grew = true; grew;) {
    grew = false;
    for (const s of queue) {
      if (live.has(s) || !edges.get(s)!.some((t) => live.has(t))) continue;
      live.add(s);
      grew = true;
    }
  }
  if (!live.has(queue[0]!)) throw new PatternError('matches no string within minLength and maxLength');

  const names = new Map(queue.filter((s) => live.has(s)).map((s) => [s, rules.reserve(hint)]));
  for (const [state, name] of names) {
    const [pos, count] = split(state);
    const options = edges.get(state)!.filter((t) => live.has(t)).map((t) => seq(encode(sets[split(t)[0]]!), ref(names.get(t)!)));
    rules.fill(name, alt(...options, ...(accepts(pos, count) ? [EMPTY] : [])));
  }
  return ref(names.get(queue[0]!)!);
}
