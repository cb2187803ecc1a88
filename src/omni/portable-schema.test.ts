import { describe, expect, it } from 'vitest';
import { portableSchema } from './portable-schema.js';

describe('portableSchema', () => {
  it('drops what an enforcing engine may refuse, keeping types, names and descriptions', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: 'where' },
        when: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^(?<a>x)+$' },
        pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] },
        tags: { type: 'array', items: { type: 'string', format: 'email' }, maxItems: 3 },
        either: { anyOf: [{ type: 'string', format: 'hostname' }, { type: 'null' }] },
        map: { type: 'object', propertyNames: { pattern: '^a' }, additionalProperties: { type: 'integer', multipleOf: 2 } },
      },
      required: ['url'],
      allOf: [{ required: ['when'] }],
    };
    expect(portableSchema(schema)).toEqual({
      type: 'object',
      properties: {
        url: { type: 'string', description: 'where' },
        when: { type: 'string', format: 'date-time' },
        code: { type: 'string' },
        pair: { type: 'array' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        map: { type: 'object', additionalProperties: { type: 'integer' } },
      },
      required: ['url'],
    });
  });

  it('makes an object schema of a missing or typeless one', () => {
    expect(portableSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(portableSchema({ required: [] })).toEqual({ type: 'object', required: [] });
  });

  it('leaves the schema it was given untouched', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', format: 'uri' } } };
    portableSchema(schema);
    expect(schema.properties.a.format).toBe('uri');
  });
});
