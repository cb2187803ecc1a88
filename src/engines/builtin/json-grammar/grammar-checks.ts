// Checks on a finished grammar, for what a schema's $ref can do that llama.cpp would not
// take or could never finish: a rule that reaches itself before any text (left recursion,
// which llama.cpp refuses: `a ::= a "x"`), and a rule that can never end (an object that
// requires a property of its own type: every document would be infinite, and a model would
// write until it runs out of tokens). Both are refused as the schema's problem.
import type { Expr } from './grammar.js';
import type { Rules } from './rules.js';

export interface GrammarProblem {
  /** The rule where it shows; Rules.paths knows the schema path of those that come from a $ref. */
  rule: string;
  message: string;
}

/** Rules that can match the empty string, or that can finish at all: the same fixpoint. */
function fixpoint(names: string[], rules: Rules, holds: (expr: Expr, known: Set<string>) => boolean): Set<string> {
  const known = new Set<string>();
  for (let grew = true; grew;) {
    grew = false;
    for (const name of names) {
      if (known.has(name) || !holds(rules.body(name), known)) continue;
      known.add(name);
      grew = true;
    }
  }
  return known;
}

function canBeEmpty(expr: Expr, empty: Set<string>): boolean {
  switch (expr.kind) {
    case 'literal': return expr.text === '';
    case 'chars': return false;
    case 'rule': return empty.has(expr.name);
    case 'seq': return expr.items.every((item) => canBeEmpty(item, empty));
    case 'alt': return expr.options.some((option) => canBeEmpty(option, empty));
    case 'repeat': return expr.min === 0 || canBeEmpty(expr.item, empty);
  }
}

function canFinish(expr: Expr, finishing: Set<string>): boolean {
  switch (expr.kind) {
    case 'literal':
    case 'chars': return true;
    case 'rule': return finishing.has(expr.name);
    case 'seq': return expr.items.every((item) => canFinish(item, finishing));
    case 'alt': return expr.options.some((option) => canFinish(option, finishing));
    case 'repeat': return expr.min === 0 || canFinish(expr.item, finishing);
  }
}

/** Rules that may come first, before any character; an unbounded loop over an item that may
 * be empty counts as its own head (llama.cpp writes `x*` as `r ::= x r |`, but `x{0,3}` as
 * nested optionals, which do not recur). */
function heads(expr: Expr, empty: Set<string>, self: string, into: Set<string>): Set<string> {
  switch (expr.kind) {
    case 'rule': into.add(expr.name); break;
    case 'seq':
      for (const item of expr.items) {
        heads(item, empty, self, into);
        if (!canBeEmpty(item, empty)) break;
      }
      break;
    case 'alt': for (const option of expr.options) heads(option, empty, self, into); break;
    case 'repeat':
      heads(expr.item, empty, self, into);
      if (expr.max === Infinity && canBeEmpty(expr.item, empty)) into.add(self);
      break;
    default: break;
  }
  return into;
}

/** The first problem in the grammar under `root`, or null. */
export function grammarProblem(rules: Rules, root: Expr): GrammarProblem | null {
  const names = rules.reachable(root);
  const finishing = fixpoint(names, rules, canFinish);
  const endless = names.find((name) => !finishing.has(name) && rules.paths.has(name)) ?? names.find((name) => !finishing.has(name));
  if (endless) return { rule: endless, message: 'has no finite value: every value of it contains another one (a required property or a minItems > 0 that leads back to it)' };

  const empty = fixpoint(names, rules, canBeEmpty);
  const headsOf = new Map(names.map((name) => [name, heads(rules.body(name), empty, name, new Set())]));
  // A rule that reaches itself through heads alone is left-recursive.
  for (const start of names) {
    const seen = new Set<string>();
    const stack = [...headsOf.get(start)!];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (name === start) return { rule: start, message: 'refers to itself before any text (left recursion), so no grammar can hold it' };
      if (seen.has(name)) continue;
      seen.add(name);
      stack.push(...(headsOf.get(name) ?? []));
    }
  }
  return null;
}
