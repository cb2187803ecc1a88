import { describe, expect, it } from 'vitest';
import { gbnfMatcher } from './gbnf-testing.js';
import { SchemaProblem, jsonSchemaGrammar } from './index.js';

const ROOT = 'response_format.json_schema.schema';

/** The problem a schema gets, as [path, message]. */
function problemOf(schema: unknown): [string, string] {
  try {
    jsonSchemaGrammar(schema, ROOT);
  } catch (error) {
    if (error instanceof SchemaProblem) return [error.path, error.message];
    throw error;
  }
  throw new Error(`no problem with ${JSON.stringify(schema)}`);
}

describe('SchemaProblem', () => {
  it('names every keyword the grammar cannot enforce, at its path', () => {
    const refused: Record<string, unknown> = {
      allOf: [{}], not: {}, if: {}, then: {}, else: {}, patternProperties: {}, propertyNames: {}, uniqueItems: true, contains: {},
      prefixItems: [{}], multipleOf: 3, minProperties: 1, maxProperties: 2, dependentRequired: {}, dependentSchemas: {},
      unevaluatedProperties: false, minContains: 1, nullable: true, $anchor: 'a', $dynamicRef: '#a', contentEncoding: 'base64',
    };
    for (const [keyword, value] of Object.entries(refused)) {
      const [path, message] = problemOf({ type: 'object', properties: { age: { type: 'integer', [keyword]: value } } });
      expect(path).toBe(`${ROOT}.properties.age.${keyword.startsWith('$') ? keyword : keyword}`);
      expect(message).toMatch(/is not supported/);
    }
  });

  it('refuses a keyword Object.prototype has as unsupported, like any other (it found a function and failed)', () => {
    for (const keyword of ['constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(problemOf({ type: 'string', [keyword]: 1 })).toEqual([`${ROOT}.${keyword}`, "is not supported by the built-in engine's structured output (it cannot be enforced while generating)"]);
    }
  });

  it('names the place inside arrays, unions and definitions', () => {
    expect(problemOf({ type: 'array', items: { anyOf: [{ type: 'string' }, { allOf: [] }] } })[0]).toBe(`${ROOT}.items.anyOf[1].allOf`);
    expect(problemOf({ $defs: { Node: { type: 'object', properties: { x: { not: {} } } } }, $ref: '#/$defs/Node' })[0]).toBe(`${ROOT}.$defs.Node.properties.x.not`);
    expect(problemOf({ properties: { 'odd key': { multipleOf: 2 } } })[0]).toBe(`${ROOT}.properties["odd key"].multipleOf`);
    expect(problemOf({ type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } })).toEqual([`${ROOT}.properties.a.items`, 'must be a schema (a list of schemas, a tuple, is not supported)']);
  });

  it('refuses malformed keyword values and unknown types or formats', () => {
    expect(problemOf({ type: 'text' })).toEqual([`${ROOT}.type`, 'must be one of null, boolean, object, array, string, number, integer, or a non-empty list of them']);
    expect(problemOf({ type: ['string', 'date'] })[0]).toBe(`${ROOT}.type`);
    expect(problemOf({ type: 'string', format: 'email' })).toEqual([`${ROOT}.format`, 'must be one of date, time, date-time, uuid (other formats are not supported)']);
    expect(problemOf({ type: 'string', maxLength: -1 })[0]).toBe(`${ROOT}.maxLength`);
    expect(problemOf({ type: 'number', minimum: '3' })[0]).toBe(`${ROOT}.minimum`);
    expect(problemOf({ exclusiveMinimum: true })[0]).toBe(`${ROOT}.exclusiveMinimum`);
    expect(problemOf({ required: 'a' })[0]).toBe(`${ROOT}.required`);
    expect(problemOf({ enum: [] })[0]).toBe(`${ROOT}.enum`);
    expect(problemOf({ properties: { a: 3 } })[0]).toBe(`${ROOT}.properties`);
    expect(problemOf(null)).toEqual([ROOT, 'must be a schema (an object or a boolean)']);
    expect(problemOf(false)).toEqual([ROOT, 'is false: no value satisfies it']);
    expect(problemOf({ properties: { a: false }, required: ['a'] })).toEqual([`${ROOT}.properties.a`, 'is false: no value satisfies it']);
    expect(problemOf({ type: 'array', items: false, minItems: 1 })[0]).toBe(`${ROOT}.minItems`);
    const withoutA = gbnfMatcher(jsonSchemaGrammar({ type: 'object', properties: { a: false, b: { type: 'null' } }, additionalProperties: false }, ROOT));
    expect(['{}', '{"b":null}'].every((s) => withoutA.test(s)) && !withoutA.test('{"a":null}')).toBe(true);
    expect(jsonSchemaGrammar({ type: 'array', items: false }, ROOT)).toBe('root ::= "[]"\n');
  });

  it('refuses empty ranges', () => {
    expect(problemOf({ type: 'string', minLength: 5, maxLength: 4 })).toEqual([`${ROOT}.minLength`, 'is above maxLength: no value can satisfy both']);
    expect(problemOf({ type: 'array', minItems: 3, maxItems: 2 })[0]).toBe(`${ROOT}.minItems`);
    expect(problemOf({ type: 'integer', minimum: 10, maximum: 3 })[0]).toBe(`${ROOT}.minimum`);
    expect(problemOf({ type: 'integer', exclusiveMinimum: 3, maximum: 3 })).toEqual([`${ROOT}.exclusiveMinimum`, 'leaves no integer within the bounds']);
    expect(problemOf({ type: 'number', minimum: 1, exclusiveMaximum: 1 })).toEqual([`${ROOT}.minimum`, 'leaves no number within the bounds']);
    expect(problemOf({ type: 'string', enum: [1, 2] })[0]).toBe(`${ROOT}.enum`);
    expect(problemOf({ const: 'a', enum: ['b'] })[0]).toBe(`${ROOT}.enum`);
  });

  it('refuses keywords beside enum, anyOf and $ref, which would apply on top', () => {
    expect(problemOf({ enum: ['ab', 'abc'], maxLength: 2 })[0]).toBe(`${ROOT}.maxLength`);
    expect(problemOf({ type: 'object', anyOf: [{ required: ['a'] }] })[0]).toBe(`${ROOT}.type`);
    expect(problemOf({ anyOf: [{}], oneOf: [{}] })[0]).toBe(`${ROOT}.oneOf`);
    expect(problemOf({ $defs: { a: { type: 'string' } }, $ref: '#/$defs/a', maxLength: 3 })[0]).toBe(`${ROOT}.maxLength`);
  });

  it('refuses $refs that do not resolve or point outside the schema', () => {
    expect(problemOf({ $ref: '#/$defs/missing' })).toEqual([`${ROOT}.$ref`, 'does not resolve: nothing in the schema at "#/$defs/missing"']);
    expect(problemOf({ properties: { a: { $ref: 'https://example.com/s.json' } } })[0]).toBe(`${ROOT}.properties.a.$ref`);
    expect(problemOf({ properties: { a: { $ref: '#/properties/b' } } })[0]).toBe(`${ROOT}.properties.a.$ref`);
    expect(problemOf({ $ref: '#/$defs/%E0%A4%A' })[1]).toMatch(/not a valid JSON pointer/);
  });

  it('refuses recursion that never ends or never writes a character', () => {
    const endless = { $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } }, required: ['next'] } }, $ref: '#/$defs/Node' };
    expect(problemOf(endless)).toEqual([`${ROOT}.$defs.Node`, 'has no finite value: every value of it contains another one (a required property or a minItems > 0 that leads back to it)']);
    const leftRecursive = { $defs: { A: { anyOf: [{ $ref: '#/$defs/B' }, { type: 'null' }] }, B: { $ref: '#/$defs/A' } }, $ref: '#/$defs/A' };
    expect(problemOf(leftRecursive)[1]).toMatch(/left recursion/);
    expect(problemOf({ anyOf: [{ $ref: '#' }, { type: 'null' }] })).toEqual([ROOT, 'refers to itself before any text (left recursion), so no grammar can hold it']);
    expect(problemOf({ type: 'array', items: { $ref: '#' }, minItems: 1 })[1]).toMatch(/no finite value/);
  });

  it('refuses a required property that additionalProperties: false forbids', () => {
    expect(problemOf({ properties: { a: {} }, required: ['a', 'b'], additionalProperties: false })).toEqual([`${ROOT}.required[1]`, 'names "b", which is not in properties while additionalProperties is false']);
  });

  it('takes oneOf only where its branches exclude each other', () => {
    expect(() => jsonSchemaGrammar({ oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] }, ROOT)).not.toThrow();
    expect(() => jsonSchemaGrammar({ oneOf: [{ const: 1 }, { enum: [2, 'x'] }, { type: 'integer', enum: [5, 6] }] }, ROOT)).not.toThrow();
    const tagged = { oneOf: [
      { type: 'object', properties: { kind: { const: 'a' } }, required: ['kind'] },
      { $ref: '#/$defs/B' },
    ], $defs: { B: { type: 'object', properties: { kind: { enum: ['b', 'c'] }, x: { type: 'string' } }, required: ['kind', 'x'] } } };
    expect(() => jsonSchemaGrammar(tagged, ROOT)).not.toThrow();
    const [path, message] = problemOf({ oneOf: [{ type: 'number' }, { type: 'integer' }] });
    expect(path).toBe(`${ROOT}.oneOf`);
    expect(message).toMatch(/branches 0 and 1 that may both match one value.*use anyOf/);
    expect(problemOf({ oneOf: [{ type: 'string' }, { minLength: 2 }] })[0]).toBe(`${ROOT}.oneOf`);
    expect(problemOf({ oneOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] })[0]).toBe(`${ROOT}.oneOf`);
    expect(problemOf({ oneOf: [{ type: 'object', properties: { kind: { const: 'a' } } }, { type: 'object', properties: { kind: { const: 'b' } } }] })[0]).toBe(`${ROOT}.oneOf`); // kind not required: {} matches both
  });
});
