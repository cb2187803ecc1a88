import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { gbnfMatcher, sampleGbnf } from './gbnf-testing.js';
import { jsonSchemaGrammar } from './index.js';

const ajv = new Ajv2020({ strict: false });
formats.default(ajv);

/** JSON text with its strings taken out: what is left must hold no whitespace. */
const outsideStrings = (json: string) => json.replace(/"(?:[^"\\]|\\.)*"/g, '""');

const NAMED: Record<string, unknown> = {
  person: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 12 },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      email: { type: ['string', 'null'], maxLength: 20 },
      tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 3 },
    },
    required: ['name', 'age'],
    additionalProperties: false,
  },
  nested: {
    type: 'object',
    properties: { inner: { type: 'object', properties: { x: { type: 'number', exclusiveMinimum: 0, maximum: 1 }, y: { const: [1, { z: null }] } }, required: ['x', 'y'] } },
    required: ['inner'],
  },
  extras: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id', 'kind'], additionalProperties: { type: 'boolean' } },
  extrasOnly: { type: 'object', additionalProperties: { type: 'integer', minimum: -3, maximum: 3 } },
  anyObject: { type: 'object' },
  anything: {},
  trueSchema: true,
  enumTyped: { type: 'string', enum: ['x', 1, 'y', null] },
  unionAnyOf: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'integer', exclusiveMaximum: -5 }, { type: 'null' }] },
  oneOfTagged: {
    oneOf: [
      { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number', minimum: 0 } }, required: ['kind', 'r'] },
      { type: 'object', properties: { kind: { enum: ['square', 'cube'] }, side: { type: 'integer' } }, required: ['kind'] },
    ],
  },
  oneOfTypes: { oneOf: [{ type: 'string', pattern: '^[a-c]+$', maxLength: 5 }, { type: 'boolean' }, { type: 'array', maxItems: 2, items: { type: 'integer' } }] },
  tree: {
    $defs: { node: { type: 'object', properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 2 } }, required: ['value', 'children'] } },
    $ref: '#/$defs/node',
  },
  definitions: { definitions: { 'a b': { type: 'string', maxLength: 3 } }, type: 'array', items: { $ref: '#/definitions/a%20b' } },
  selfRef: { type: 'object', properties: { next: { $ref: '#' }, n: { type: 'integer' } }, required: ['n'] },
  strings: { type: 'array', items: { type: 'string', minLength: 2, maxLength: 4 }, minItems: 2 },
  patterned: { type: 'string', pattern: '"\\\\', maxLength: 6 },
  numbers: { type: 'array', items: { type: 'number', minimum: -1e-3, exclusiveMaximum: 1e-3 } },
};

describe('jsonSchemaGrammar', () => {
  it('admits only compact documents that validate against the schema', () => {
    for (const [name, schema] of Object.entries(NAMED)) {
      const grammar = jsonSchemaGrammar(schema, 'schema');
      const valid = ajv.compile(schema as object);
      for (const sample of sampleGbnf(grammar, name.length, 150)) {
        const value = JSON.parse(sample);
        expect(valid(value), `${name}: ${sample} ${JSON.stringify(valid.errors)}`).toBe(true);
        expect(outsideStrings(sample), `${name}: ${sample}`).not.toMatch(/\s/);
      }
    }
  });

  it('writes declared properties in their order, required ones always, optional ones optional', () => {
    const grammar = jsonSchemaGrammar({ type: 'object', properties: { a: { type: 'null' }, b: { type: 'boolean' }, c: { type: 'null' } }, required: ['b'] }, 's');
    expect(grammar).toBe([
      'root ::= "{" (root-a-kv root-rest-2 | root-b-kv root-rest) "}"',
      'root-a-kv ::= "\\"a\\":null"',
      'root-rest-2 ::= "," root-b-kv root-rest',
      'root-b-kv ::= "\\"b\\":" root-b',
      'root-rest ::= ("," root-c-kv)?',
      'root-b ::= "true" | "false"',
      'root-c-kv ::= "\\"c\\":null"',
      '',
    ].join('\n'));
    for (const sample of sampleGbnf(grammar, 1, 50)) expect(Object.keys(JSON.parse(sample)).join()).toMatch(/^(a,)?b(,c)?$/);
  });

  it('keeps extra properties to keys that are not declared, however they might be spelled', () => {
    const grammar = jsonSchemaGrammar({ properties: { age: { type: 'integer' } }, additionalProperties: { type: 'string', maxLength: 2 } }, 's');
    for (const sample of sampleGbnf(grammar, 2, 300)) {
      const keys = [...sample.matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((m) => m[1]);
      expect(keys.filter((k) => k === 'age').length, sample).toBeLessThanOrEqual(1);
      expect(keys.every((k) => !k!.includes('\\')), sample).toBe(true);
      expect(typeof JSON.parse(sample).age === 'number' || JSON.parse(sample).age === undefined, sample).toBe(true);
    }
  });

  it('keeps an extra key within 32 characters once it leaves the declared names', () => {
    const matcher = gbnfMatcher(jsonSchemaGrammar({ properties: { age: { type: 'integer' } }, additionalProperties: { type: 'null' } }, 's'));
    for (const key of ['a', 'ag', 'agex', 'x'.repeat(32), `age${'x'.repeat(29)}`, '']) expect(matcher.test(`{${JSON.stringify(key)}:null}`), key).toBe(true);
    for (const key of ['age', 'x'.repeat(33), `ag${'x'.repeat(31)}`]) expect(matcher.test(`{${JSON.stringify(key)}:null}`), key).toBe(false);
    expect(matcher.test('{"age":1,"b":null,"c":null}')).toBe(true);
    expect(matcher.test('{"b":null,"age":1}')).toBe(false); // declared ones first
  });

  it('shares equal rules and stays linear on nested unions and wide objects', () => {
    // One schema object in two places of each level: 2^40 paths, compiled once each.
    let shared: unknown = { type: 'integer', minimum: 0, maximum: 9 };
    for (let depth = 0; depth < 40; depth++) shared = { anyOf: [shared, { type: 'array', items: shared, maxItems: 2 }] };
    expect(jsonSchemaGrammar(shared, 's').split('\n').length).toBeLessThan(200);
    let nested: unknown = { type: 'integer', minimum: 0, maximum: 9 };
    for (let depth = 0; depth < 40; depth++) nested = { anyOf: [{ type: 'null' }, { type: 'object', properties: { x: nested, y: { type: 'integer', minimum: 0, maximum: 9 } } }] };
    const deep = jsonSchemaGrammar(JSON.parse(JSON.stringify(nested)), 's');
    expect(deep.split('\n').length).toBeLessThan(200);
    expect(deep.length).toBeLessThan(20_000);
    const properties = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 8 }]));
    const wide = jsonSchemaGrammar({ type: 'object', properties }, 's');
    expect(wide.length).toBeLessThan(60_000);
    const valid = ajv.compile({ type: 'object', properties });
    for (const sample of sampleGbnf(wide, 3, 20)) expect(valid(JSON.parse(sample))).toBe(true);
  });

  it('writes enum and const values as compact JSON, of the listed types only', () => {
    expect(jsonSchemaGrammar({ enum: [{ b: [1, 2], a: 'x y' }, 'q"', -0.5] }, 's')).toBe('root ::= "{\\"b\\":[1,2],\\"a\\":\\"x y\\"}" | "\\"q\\\\\\"\\"" | "-0.5"\n');
    expect(jsonSchemaGrammar({ type: 'integer', enum: [1, 1.5, '2', 3] }, 's')).toBe('root ::= "1" | "3"\n');
    expect(jsonSchemaGrammar({ const: 'a', enum: ['a', 'b'] }, 's')).toBe('root ::= "\\"a\\""\n');
  });
});
