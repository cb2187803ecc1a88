import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { gbnfMatcher, sampleGbnf } from './gbnf-testing.js';
import { SchemaProblem, anyJsonObjectGrammar, toolCallsGrammar } from './index.js';

const ajv = new Ajv2020({ strict: false });

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 10 }, unit: { enum: ['c', 'f'] }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city'],
  additionalProperties: false,
  $defs: { unused: { type: 'string' } },
};
const FUNCTIONS = [
  { name: 'get_weather', parameters: WEATHER, path: 'tools[0].function.parameters' },
  { name: 'noop', parameters: undefined, path: 'tools[1].function.parameters' },
  { name: 'say "hi"', parameters: {}, path: 'tools[2].function.parameters' },
];

describe('toolCallsGrammar', () => {
  it('writes one call, or with parallel one or more, each naming a function and matching its parameters', () => {
    const validWeather = ajv.compile(WEATHER);
    for (const parallel of [false, true]) {
      const lengths = new Set<number>();
      for (const sample of sampleGbnf(toolCallsGrammar(FUNCTIONS, { parallel }), 11, 300)) {
        const calls = JSON.parse(sample) as Array<{ name: string; arguments: unknown }>;
        expect(Array.isArray(calls)).toBe(true);
        lengths.add(calls.length);
        for (const call of calls) {
          expect(Object.keys(call)).toEqual(['name', 'arguments']);
          expect(FUNCTIONS.map((f) => f.name)).toContain(call.name);
          if (call.name === 'get_weather') expect(validWeather(call.arguments), sample).toBe(true);
          else expect(typeof call.arguments === 'object' && call.arguments !== null && !Array.isArray(call.arguments), sample).toBe(true);
        }
      }
      expect([...lengths].sort()).toEqual(parallel ? [1, 2, 3, 4, 5] : [1]);
    }
  });

  it('writes at most maxCalls calls', () => {
    const lengths = new Set(sampleGbnf(toolCallsGrammar(FUNCTIONS, { parallel: true, maxCalls: 2 }), 12, 200).map((s) => (JSON.parse(s) as unknown[]).length));
    expect([...lengths].sort()).toEqual([1, 2]);
    const one = sampleGbnf(toolCallsGrammar(FUNCTIONS, { parallel: false, maxCalls: 3 }), 12, 50).map((s) => (JSON.parse(s) as unknown[]).length);
    expect(new Set(one)).toEqual(new Set([1]));
  });

  it('has the call list as its root', () => {
    const grammar = toolCallsGrammar([{ name: 'f', parameters: { type: 'object', properties: {} }, path: 'p' }], { parallel: false });
    expect(grammar).toBe('root ::= "[" f-call "]"\nf-call ::= "{\\"name\\":\\"f\\",\\"arguments\\":{}}"\n');
    const matcher = gbnfMatcher(toolCallsGrammar([{ name: 'f', parameters: { type: 'object', properties: {} }, path: 'p' }], { parallel: true }));
    expect(['[{"name":"f","arguments":{}}]', '[{"name":"f","arguments":{}},{"name":"f","arguments":{}}]'].every((s) => matcher.test(s))).toBe(true);
    expect(['[]', '[{"name":"g","arguments":{}}]', '[{"name":"f","arguments":{}} ]'].some((s) => matcher.test(s))).toBe(false);
  });

  it('names problems at the function they are in', () => {
    const bad = [...FUNCTIONS, { name: 'g', parameters: { type: 'object', properties: { n: { type: 'integer', multipleOf: 2 } } }, path: 'tools[3].function.parameters' }];
    let problem: unknown;
    try {
      toolCallsGrammar(bad, { parallel: true });
    } catch (error) {
      problem = error;
    }
    expect(problem).toBeInstanceOf(SchemaProblem);
    expect((problem as SchemaProblem).path).toBe('tools[3].function.parameters.properties.n.multipleOf');
    const endless = { name: 'h', parameters: { type: 'object', properties: { again: { $ref: '#' } }, required: ['again'] }, path: 'tools[4].function.parameters' };
    expect(() => toolCallsGrammar([...FUNCTIONS, endless], { parallel: false })).toThrow(expect.objectContaining({ path: 'tools[4].function.parameters' }));
    expect(() => toolCallsGrammar([], { parallel: false })).toThrow(SchemaProblem);
  });

  it('resolves each function\'s $refs in its own parameters', () => {
    const withDefs = (kind: string) => ({ $defs: { Arg: { type: kind } }, type: 'object', properties: { a: { $ref: '#/$defs/Arg' } }, required: ['a'] });
    const grammar = toolCallsGrammar([{ name: 'f', parameters: withDefs('boolean'), path: 'a' }, { name: 'g', parameters: withDefs('null'), path: 'b' }], { parallel: true });
    for (const sample of sampleGbnf(grammar, 4, 100)) {
      for (const call of JSON.parse(sample) as Array<{ name: string; arguments: { a: unknown } }>) expect(call.name === 'f' ? typeof call.arguments.a === 'boolean' : call.arguments.a === null).toBe(true);
    }
  });
});

describe('anyJsonObjectGrammar', () => {
  it('admits any compact JSON object and nothing else', () => {
    const grammar = anyJsonObjectGrammar();
    for (const sample of sampleGbnf(grammar, 9, 200)) {
      const value = JSON.parse(sample);
      expect(typeof value === 'object' && value !== null && !Array.isArray(value), sample).toBe(true);
    }
    const matcher = gbnfMatcher(grammar);
    expect(['{}', '{"a":[1,{"b":null}],"":"x\\u00e9"}', '{"n":-0.5,"t":true}'].every((s) => matcher.test(s))).toBe(true);
    expect(['[]', '"x"', '{ }', '{"a":1,}', '{"a":01}'].some((s) => matcher.test(s))).toBe(false);
  });
});
