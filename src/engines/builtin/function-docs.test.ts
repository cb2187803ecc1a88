import { ChatMLChatWrapper } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { chatFunctions, docSchema } from './function-docs.js';

describe('docSchema', () => {
  it('keeps what node-llama-cpp reads', () => {
    const schema = {
      type: 'object', description: 'where',
      properties: { city: { type: 'string', maxLength: 20 }, unit: { enum: ['c', 'f'] }, days: { type: 'array', items: { type: 'integer' }, maxItems: 3 }, when: { type: 'string', format: 'date' } },
      required: ['city', 'nope'],
    };
    expect(docSchema(schema)).toEqual({
      type: 'object', description: 'where',
      properties: { city: { type: 'string', maxLength: 20 }, unit: { enum: ['c', 'f'] }, days: { type: 'array', items: { type: 'integer' }, maxItems: 3 }, when: { type: 'string', format: 'date' } },
      required: ['city'],
    });
  });

  it('widens what it does not read: refs, patterns, formats it lacks, type lists', () => {
    expect(docSchema({ $ref: '#/$defs/x' })).toEqual({ type: ['string', 'number', 'integer', 'boolean', 'null'] });
    expect(docSchema({ type: 'string', pattern: '^a+$', format: 'email' })).toEqual({ type: 'string' });
    expect(docSchema({ type: ['string', 'null'] })).toEqual({ oneOf: [{ type: 'string' }, { type: 'null' }] });
    expect(docSchema({ anyOf: [{ type: 'number' }, { const: 'x' }] })).toEqual({ oneOf: [{ type: 'number' }, { const: 'x' }] });
  });

  it('the functions are documented in the prompt by the chat wrapper', () => {
    const functions = chatFunctions([{ name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, path: 'tools[0].function.parameters' }]);
    const text = new ChatMLChatWrapper().generateContextState({ chatHistory: [{ type: 'user', text: 'hi' }], availableFunctions: functions, documentFunctionParams: true }).contextText.toString();
    expect(text).toContain('// Weather of a city\nfunction get_weather(params: {city: string});');
  });
});
