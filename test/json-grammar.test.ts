// The JSON Schema grammar compiler (src/engines/builtin/json-grammar/) on the real tiny
// random-weight model, in-process through node-llama-cpp: whatever the weights, every answer
// generated under the grammar parses and validates (ajv, with ajv-formats). The model is
// random, so it tries the grammar's corners that a trained model would avoid. Unbounded
// strings are where it could run until it is out of tokens (it rarely closes a quote), so
// every string here has a maxLength, and json_object's any-object grammar is left to the
// unit tests (json-grammar/tool-calls.test.ts samples it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { LlamaCompletion, LlamaLogLevel, getLlama, type Llama, type LlamaContext, type LlamaModel } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaGrammar, toolCallsGrammar } from '../src/engines/builtin/json-grammar/index.js';
import { tinyModel } from './helpers/llama.js';

const SEEDS = [1, 2, 3, 4, 5];
const ajv = new Ajv2020({ strict: false });
formats.default(ajv);

const SCHEMAS: Record<string, object> = {
  'nested objects, optional members, unions with null': {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 12 },
      age: { type: 'integer', minimum: 0, maximum: 120 },
      email: { type: ['string', 'null'], maxLength: 16 },
      address: { type: 'object', properties: { city: { type: 'string', maxLength: 10 }, zip: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['city'] },
    },
    required: ['name', 'age', 'address'],
    additionalProperties: false,
  },
  'arrays with min and max items': { type: 'array', items: { type: 'array', items: { type: 'boolean' }, minItems: 1, maxItems: 3 }, minItems: 2, maxItems: 4 },
  'enum and const, keys and values that need escapes': {
    type: 'object',
    properties: { color: { enum: ['red', 'café', '😀', 'tab\there', 42, null] }, 'say "hi" \\': { const: { major: 1, tags: ['x'] } } },
    required: ['color', 'say "hi" \\'],
  },
  // One value only: the model must spell it exactly, which checks how llama.cpp reads our escapes.
  'a const with non-ASCII and escaped characters': { const: ['café 😀 中', 'q"\\\t\n\u0001'] },
  'bounded integers': {
    type: 'array', minItems: 3, maxItems: 3,
    items: { anyOf: [{ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 }, { type: 'integer', exclusiveMinimum: -20, exclusiveMaximum: -3 }, { type: 'integer', minimum: 1000, maximum: 1010 }] },
  },
  'bounded numbers': {
    type: 'object',
    properties: { ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 }, temp: { type: 'number', minimum: -1.5, maximum: 2.25 }, narrow: { type: 'number', minimum: 0.25, maximum: 0.75 } },
    required: ['ratio', 'temp', 'narrow'],
  },
  'string lengths': { type: 'array', items: { type: 'string', minLength: 3, maxLength: 8 }, minItems: 2, maxItems: 2 },
  patterns: {
    type: 'object',
    properties: { code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{2,4}$' }, loose: { type: 'string', pattern: 'ab', maxLength: 6 }, quoted: { type: 'string', pattern: '^"[^"]{0,3}"$' } },
    required: ['code', 'loose', 'quoted'],
  },
  formats: {
    type: 'object',
    properties: { day: { type: 'string', format: 'date' }, at: { type: 'string', format: 'time' }, when: { type: 'string', format: 'date-time' }, id: { type: 'string', format: 'uuid' } },
    required: ['day', 'at', 'when', 'id'],
  },
  'anyOf and oneOf': {
    type: 'array', minItems: 2, maxItems: 3,
    items: {
      oneOf: [
        { type: 'object', properties: { kind: { const: 'circle' }, r: { type: 'number', minimum: 0, maximum: 10 } }, required: ['kind', 'r'] },
        { type: 'object', properties: { kind: { enum: ['square', 'cube'] }, side: { anyOf: [{ type: 'integer', minimum: 1, maximum: 9 }, { type: 'null' }] } }, required: ['kind', 'side'] },
        { type: 'string', maxLength: 5 },
      ],
    },
  },
  // With maxItems: 2 the random model grows some trees until it runs out of tokens; one child
  // makes a chain, which it ends.
  '$ref recursion, depth held by maxItems': {
    $defs: { node: { type: 'object', properties: { value: { type: 'integer', minimum: 0, maximum: 99 }, next: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 1 } }, required: ['value', 'next'] } },
    $ref: '#/$defs/node',
  },
  'extra properties from an additionalProperties schema': { type: 'object', properties: { id: { type: 'integer', minimum: 0, maximum: 9 } }, required: ['id'], additionalProperties: { type: 'boolean' } },
};

const FUNCTIONS = [
  { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string', maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'], additionalProperties: false }, path: 'tools[0].function.parameters' },
  { name: 'set_alarm', parameters: { type: 'object', properties: { at: { type: 'string', format: 'time' }, label: { type: ['string', 'null'], maxLength: 8 } }, required: ['at'] }, path: 'tools[1].function.parameters' },
];

let dir: string;
let llama: Llama;
let model: LlamaModel;
let context: LlamaContext;
let generations = 0;
const started = performance.now();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-json-grammar-'));
  llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: 1 });
  model = await llama.loadModel({ modelPath: await tinyModel(dir) });
  // One thread: on a busy two-core machine more threads wait on each other for every token.
  context = await model.createContext({ contextSize: 2048, threads: 1 });
});

afterAll(async () => {
  await context?.dispose();
  await model?.dispose();
  await llama?.dispose();
  rmSync(dir, { recursive: true, force: true });
  console.log(`json-grammar on the tiny model: ${generations} generations in ${((performance.now() - started) / 1000).toFixed(1)} s`);
});

/** The model's answers under `gbnf`, one per seed, at temperature 1; each must end by itself. */
async function answers(gbnf: string): Promise<string[]> {
  const grammar = await llama.createGrammar({ grammar: gbnf });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
  try {
    const texts: string[] = [];
    for (const seed of SEEDS) {
      const { response, metadata } = await completion.generateCompletionWithMeta('The answer, in JSON:', { grammar, temperature: 1, seed, maxTokens: 1500 });
      expect(metadata.stopReason, `seed ${seed}: ${response}`).toBe('eogToken');
      texts.push(response);
      generations++;
    }
    return texts;
  } finally {
    completion.dispose({ disposeSequence: true });
  }
}

/** JSON text with its strings taken out: what is left must hold no whitespace. */
const outsideStrings = (json: string) => json.replace(/"(?:[^"\\]|\\.)*"/g, '""');

describe('json-grammar on the tiny model', () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`${name}: every answer parses and validates`, async () => {
      const valid = ajv.compile(schema);
      for (const text of await answers(jsonSchemaGrammar(schema, 'response_format.json_schema.schema'))) {
        expect(valid(JSON.parse(text)), `${text}\n${JSON.stringify(valid.errors)}`).toBe(true);
        expect(outsideStrings(text), text).not.toMatch(/\s/);
      }
    }, 120_000);
  }

  // Without maxCalls the random model keeps adding calls until it runs out of tokens.
  for (const parallel of [false, true]) {
    it(`tool calls, two functions, parallel: ${parallel}`, async () => {
      const validators = new Map(FUNCTIONS.map((f) => [f.name, ajv.compile(f.parameters)]));
      for (const text of await answers(toolCallsGrammar(FUNCTIONS, { parallel, maxCalls: 4 }))) {
        const calls = JSON.parse(text) as Array<{ name: string; arguments: unknown }>;
        expect(Array.isArray(calls) && (parallel ? calls.length >= 1 && calls.length <= 4 : calls.length === 1), text).toBe(true);
        for (const call of calls) {
          expect(Object.keys(call), text).toEqual(['name', 'arguments']);
          const valid = validators.get(call.name);
          expect(valid && valid(call.arguments), `${text}\n${JSON.stringify(valid?.errors)}`).toBe(true);
        }
      }
    }, 120_000);
  }
});
