// `type: object`, llama.cpp's way: declared properties in declaration order, the required
// ones always, the optional ones optional, and extra properties (after them) only when
// additionalProperties is a schema. Without it, or with `true`, only declared properties are
// written: still valid, and a model cannot wander off into keys of its own. An object that
// declares nothing allows any object.
import { ofChars, subtract, union } from './code-ranges.js';
import { EMPTY, alt, chars, literal, repeat, seq, type Expr } from './grammar.js';
import { RAW } from './json-chars.js';
import type { Rules } from './rules.js';
import { SchemaProblem, childPath, isObject, itemPath, type SchemaObject } from './schema-check.js';

/** What an object needs from the compiler: its members' grammars. */
export interface ObjectContext {
  rules: Rules;
  /** The grammar of a member's schema, as a named rule. */
  child(schema: unknown, path: string, hint: string): Expr;
  anyObject(): Expr;
}

interface Member {
  kv: Expr;
  required: boolean;
  /** Extra properties: any number of them. */
  repeats: boolean;
}

/**
 * How long an extra property's key may grow once it leaves the declared names. JSON Schema
 * sets no limit (propertyNames is not supported), but a key is where a model that never
 * closes its quote would run until it is out of tokens; 32 characters keep it a key.
 */
export const EXTRA_KEY_LENGTH = 32;

/**
 * A key other than `names`, spelled with unescaped characters only so that no spelling of a
 * declared name (`"\u0061ge"` for "age") slips through: a trie of the names, leaving it.
 */
function keyOutside(names: readonly string[], depth = 0): Expr {
  const here = names.map((name) => [...name]);
  const options: Expr[] = [];
  if (!here.some((name) => name.length === depth)) options.push(literal('"'));
  const next = [...new Set(here.filter((name) => name.length > depth).map((name) => name[depth]!))];
  const others = subtract(RAW, union(...next.map(ofChars)));
  if (others.length > 0) options.push(seq(chars(others), repeat(chars(RAW), 0, Math.max(0, EXTRA_KEY_LENGTH - depth - 1)), literal('"')));
  for (const ch of next) options.push(seq(literal(ch), keyOutside(names.filter((name) => [...name][depth] === ch), depth + 1)));
  return alt(...options);
}

/**
 * The members, comma-separated, the first one written without a comma: for each possible
 * first member, it and then the rest (each behind a comma, optional ones optional). The
 * rests are rules, one per position, so the grammar grows linearly with the members.
 */
function membersGrammar(members: readonly Member[], rules: Rules, hint: string): Expr {
  const rests: Expr[] = [EMPTY];
  for (let i = members.length - 1; i >= 0; i--) {
    const { kv, required, repeats } = members[i]!;
    const item = seq(literal(','), kv);
    const own = required ? item : repeat(item, 0, repeats ? Infinity : 1);
    rests.unshift(rules.define(`${hint}-rest`, seq(own, rests[0]!)));
  }
  const options: Expr[] = [];
  for (let i = 0; i < members.length; i++) {
    const { kv, required, repeats } = members[i]!;
    options.push(seq(kv, repeats ? repeat(seq(literal(','), kv), 0, Infinity) : EMPTY, rests[i + 1]!));
    if (required) return alt(...options);
  }
  return alt(...options, EMPTY);
}

export function objectGrammar(schema: SchemaObject, path: string, hint: string, context: ObjectContext): Expr {
  const properties = (schema.properties ?? {}) as SchemaObject;
  const required = (schema.required ?? []) as string[];
  const additional = schema.additionalProperties;
  if (schema.properties === undefined && required.length === 0 && (additional === undefined || additional === true)) return context.anyObject();

  const members: Member[] = [];
  const memberOf = (name: string, valueSchema: unknown, valuePath: string): Member => ({
    kv: context.rules.define(`${hint}-${name}-kv`, seq(literal(`${JSON.stringify(name)}:`), context.child(valueSchema, valuePath, `${hint}-${name}`))),
    required: required.includes(name),
    repeats: false,
  });
  for (const [name, valueSchema] of Object.entries(properties)) {
    // A property whose schema is false must be absent; required, it is the schema's contradiction (compile says so).
    if (valueSchema === false && !required.includes(name)) continue;
    members.push(memberOf(name, valueSchema, childPath(childPath(path, 'properties'), name)));
  }
  // A required name that is not declared must still be written, with the schema extra properties get.
  const declared = new Set(Object.keys(properties));
  for (const name of new Set(required)) {
    if (declared.has(name)) continue;
    const at = itemPath(childPath(path, 'required'), required.indexOf(name));
    if (additional === false) throw new SchemaProblem(at, `names "${name}", which is not in properties while additionalProperties is false`);
    members.push(isObject(additional) ? memberOf(name, additional, childPath(path, 'additionalProperties')) : memberOf(name, true, at));
  }
  if (isObject(additional)) {
    const key = context.rules.define(`${hint}-extra-key`, seq(literal('"'), keyOutside([...new Set([...declared, ...required])])));
    const value = context.child(additional, childPath(path, 'additionalProperties'), `${hint}-extra`);
    members.push({ kv: context.rules.define(`${hint}-extra-kv`, seq(key, literal(':'), value)), required: false, repeats: true });
  }
  return seq(literal('{'), members.length === 0 ? EMPTY : membersGrammar(members, context.rules, hint), literal('}'));
}
