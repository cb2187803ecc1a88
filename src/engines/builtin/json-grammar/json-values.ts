// Any JSON value, compact: what `true`, `{}` and an object without declared properties
// allow. Numbers keep to decimal-range's shape (no exponent, 16 integer digits at most), so a
// model cannot run on digits; strings and nesting are as long as the model makes them.
import { alt, literal, optional, ref, repeat, seq, type Expr } from './grammar.js';
import { ANY_JSON_CHAR } from './json-chars.js';
import { decimalRange } from './number-range.js';
import type { Rules } from './rules.js';

export class JsonValues {
  private names: { value: string; object: string } | null = null;

  constructor(private readonly rules: Rules) {}

  /** Any JSON string. */
  string(): Expr {
    return this.rules.define('string', seq(literal('"'), repeat(this.rules.define('char', ANY_JSON_CHAR), 0, Infinity), literal('"')));
  }

  /** Any JSON value. */
  value(): Expr {
    return ref(this.define().value);
  }

  /** Any JSON object. */
  object(): Expr {
    return ref(this.define().object);
  }

  private define(): { value: string; object: string } {
    if (this.names) return this.names;
    // value, object and array refer to each other: named first, filled after.
    const names = { value: this.rules.reserve('value'), object: this.rules.reserve('object'), array: this.rules.reserve('array') };
    this.names = names;
    const value = ref(names.value);
    const member = seq(this.string(), literal(':'), value);
    const number = this.rules.define('number', decimalRange(undefined, undefined)!);
    this.rules.fill(names.object, seq(literal('{'), optional(seq(member, repeat(seq(literal(','), member), 0, Infinity))), literal('}')));
    this.rules.fill(names.array, seq(literal('['), optional(seq(value, repeat(seq(literal(','), value), 0, Infinity))), literal(']')));
    this.rules.fill(names.value, alt(ref(names.object), ref(names.array), this.string(), number, literal('true'), literal('false'), literal('null')));
    return names;
  }
}
