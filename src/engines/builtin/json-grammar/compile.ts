// A JSON Schema to grammar expressions, keyword by keyword (schema-check.ts lists which).
// One Compiler builds one grammar, possibly from several documents (a tool call's functions
// each have their own parameters, and their own `$defs` for `$ref` to point into).
import { alt, literal, optional, ref, repeat, seq, type Expr } from './grammar.js';
import { encodedChar } from './json-chars.js';
import { JsonValues } from './json-values.js';
import { integerGrammar, numberGrammar, type NumericBounds } from './number-range.js';
import { objectGrammar } from './objects.js';
import { oneOfOverlap } from './one-of.js';
import { PatternError } from './pattern.js';
import { resolveRef } from './refs.js';
import { Rules } from './rules.js';
import { ENFORCED, SchemaProblem, checkKeywords, childPath, declaredTypes, firstOf, isObject, itemPath, type JsonType, type SchemaObject } from './schema-check.js';
import { canonicalJson, hasType, writtenTypes } from './schema-types.js';
import { stringGrammar } from './strings.js';
import type { CodeRanges } from './code-ranges.js';

/** One schema document: `$ref`s inside it resolve against its root. */
export interface SchemaDocument {
  root: unknown;
  /** Where the root is in the request. */
  path: string;
  /** Rules already made for its `$ref` targets, by JSON pointer. */
  refs: Map<string, Expr>;
  /** Grammars already made for its schema objects: one object met twice is compiled once. */
  done: WeakMap<object, Expr>;
}

export const schemaDocument = (root: unknown, path: string): SchemaDocument => ({ root, path, refs: new Map(), done: new WeakMap() });

export class Compiler {
  readonly rules = new Rules();
  readonly values = new JsonValues(this.rules);

  /** One character of a string value from `set`: a class inline, anything larger as a shared rule. */
  readonly encode = (set: CodeRanges): Expr => {
    const spelled = encodedChar(set);
    if (!spelled) throw new PatternError('has a character class that JSON text cannot hold (lone surrogates only)');
    return spelled.kind === 'chars' || spelled.kind === 'literal' ? spelled : this.rules.define('class', spelled);
  };

  /** The grammar of `schema` at `path`, as one expression. */
  compile(schema: unknown, path: string, hint: string, doc: SchemaDocument): Expr {
    if (schema === true) return this.values.value();
    if (schema === false) throw new SchemaProblem(path, 'is false: no value satisfies it');
    if (!isObject(schema)) throw new SchemaProblem(path, 'must be a schema (an object or a boolean)');
    const done = doc.done.get(schema);
    if (done) return done;
    const expr = this.compileObject(schema, path, hint, doc);
    doc.done.set(schema, expr);
    return expr;
  }

  private compileObject(schema: SchemaObject, path: string, hint: string, doc: SchemaDocument): Expr {
    checkKeywords(schema, path);
    if (schema.$ref !== undefined) return this.reference(schema, path, doc);
    if ('const' in schema || 'enum' in schema) return this.literals(schema, path);
    if (schema.anyOf !== undefined || schema.oneOf !== undefined) return this.union(schema, path, hint, doc);
    const types = writtenTypes(schema);
    if (!types) return this.values.value();
    return alt(...types.map((type) => this.typed(type, schema, path, hint, doc)));
  }

  /** As compile, named: a rule of its own (or a shared equal one), for members and items. */
  child(schema: unknown, path: string, hint: string, doc: SchemaDocument): Expr {
    const expr = this.compile(schema, path, hint, doc);
    return expr.kind === 'rule' || expr.kind === 'literal' ? expr : this.rules.define(hint, expr);
  }

  private typed(type: JsonType, schema: SchemaObject, path: string, hint: string, doc: SchemaDocument): Expr {
    switch (type) {
      case 'null': return literal('null');
      case 'boolean': return alt(literal('true'), literal('false'));
      case 'string': return stringGrammar(schema, path, hint, { rules: this.rules, encode: this.encode });
      case 'integer':
      case 'number': {
        const grammar = type === 'integer' ? integerGrammar(schema as NumericBounds) : numberGrammar(schema as NumericBounds);
        if (!grammar) throw new SchemaProblem(childPath(path, firstOf(schema, ['minimum', 'exclusiveMinimum']) ?? 'maximum'), `leaves no ${type === 'integer' ? 'integer' : 'number'} within the bounds`);
        return grammar;
      }
      case 'array': return this.array(schema, path, hint, doc);
      case 'object': return objectGrammar(schema, path, hint, {
        rules: this.rules,
        child: (member, memberPath, memberHint) => this.child(member, memberPath, memberHint, doc),
        anyObject: () => this.values.object(),
      });
    }
  }

  private array(schema: SchemaObject, path: string, hint: string, doc: SchemaDocument): Expr {
    const min = (schema.minItems as number | undefined) ?? 0;
    // `items: false` allows no item at all.
    const max = schema.items === false ? 0 : (schema.maxItems as number | undefined) ?? Infinity;
    if (max === 0 && min > 0) throw new SchemaProblem(childPath(path, 'minItems'), 'asks for items that items: false forbids');
    if (max === 0) return literal('[]');
    const item = schema.items === undefined ? this.values.value() : this.child(schema.items, childPath(path, 'items'), `${hint}-item`, doc);
    const items = seq(item, repeat(seq(literal(','), item), Math.max(0, min - 1), max - 1));
    return seq(literal('['), min === 0 ? optional(items) : items, literal(']'));
  }

  /** enum and const: their values, written as compact JSON, those of the listed types only. */
  private literals(schema: SchemaObject, path: string): Expr {
    const other = firstOf(schema, [...ENFORCED].filter((key) => !['type', 'enum', 'const'].includes(key)));
    if (other) throw new SchemaProblem(childPath(path, other), 'alongside enum or const is not supported: the listed values must be the whole of the schema');
    let values = 'enum' in schema ? (schema.enum as unknown[]) : [schema.const];
    if ('const' in schema) values = values.filter((value) => canonicalJson(value) === canonicalJson(schema.const));
    const types = declaredTypes(schema);
    if (types) values = values.filter((value) => hasType(value, types));
    if (values.length === 0) throw new SchemaProblem(childPath(path, 'enum' in schema ? 'enum' : 'const'), 'has no value that also satisfies the rest of the schema (type, const)');
    return alt(...values.map((value) => literal(JSON.stringify(value))));
  }

  private union(schema: SchemaObject, path: string, hint: string, doc: SchemaDocument): Expr {
    const keyword = schema.anyOf !== undefined ? 'anyOf' : 'oneOf';
    const other = firstOf(schema, [...ENFORCED].filter((key) => key !== keyword));
    if (other) throw new SchemaProblem(childPath(path, other), `alongside ${keyword} is not supported: move it into each of the ${keyword} schemas`);
    const branches = schema[keyword] as unknown[];
    const where = childPath(path, keyword);
    const grammars = branches.map((branch, i) => this.child(branch, itemPath(where, i), `${hint}-${i}`, doc));
    if (keyword === 'oneOf') {
      const overlap = oneOfOverlap(branches, (pointer) => resolveRef(pointer, doc.root, doc.path, where).schema);
      if (overlap) throw new SchemaProblem(where, overlap);
    }
    return alt(...grammars);
  }

  private reference(schema: SchemaObject, path: string, doc: SchemaDocument): Expr {
    const other = firstOf(schema, [...ENFORCED].filter((key) => key !== '$ref'));
    if (other) throw new SchemaProblem(childPath(path, other), 'alongside $ref is not supported: move it into the schema $ref points at');
    const target = resolveRef(schema.$ref as string, doc.root, doc.path, childPath(path, '$ref'));
    const known = doc.refs.get(target.pointer);
    if (known) return known;
    // Named before it is compiled: the target may refer back to itself.
    const name = this.rules.reserve(target.hint, target.path);
    doc.refs.set(target.pointer, ref(name));
    this.rules.fill(name, this.compile(target.schema, target.path, name, doc));
    return ref(name);
  }
}
