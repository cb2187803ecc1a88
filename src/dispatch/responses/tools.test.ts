import { describe, expect, it } from 'vitest';
import { RequestError } from '../../protocol/errors.js';
import { readText, readToolChoice, readTools } from './tools.js';

function pathOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RequestError);
    return ((error as RequestError).details.problems as { path: string }[])[0]!.path;
  }
  throw new Error('expected a request.invalid error');
}

const weather = { type: 'function', name: 'weather', description: 'Weather now', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true };

describe('readTools', () => {
  it("turns Responses' flat function tools into chat's nested ones, and echoes them as OpenAI does", () => {
    const tools = readTools([weather, { type: 'function', name: 'clock' }]);
    expect(tools.chat).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Weather now', parameters: weather.parameters, strict: true } },
      { type: 'function', function: { name: 'clock' } },
    ]);
    expect(tools.echo).toEqual([weather, { type: 'function', name: 'clock', description: null, parameters: null, strict: null }]);
    expect([...tools.names]).toEqual(['weather', 'clock']);
  });

  it.each([
    ['a list that is not one', { type: 'function' }, 'tools'],
    ['a tool that is not an object', ['weather'], 'tools[0]'],
    ['a tool without a name', [weather, { type: 'function', parameters: {} }], 'tools[1].name'],
    ['an empty name', [{ type: 'function', name: '' }], 'tools[0].name'],
    ['a duplicate name', [weather, { ...weather, description: 'again' }], 'tools[1].name'],
    ['a web_search tool', [{ type: 'web_search' }], 'tools[0].type'],
    ['an mcp tool', [weather, { type: 'mcp', server_label: 'x' }], 'tools[1].type'],
    ['parameters that are not an object', [{ type: 'function', name: 'f', parameters: 'x' }], 'tools[0].parameters'],
    ['a description that is not a string', [{ type: 'function', name: 'f', description: 3 }], 'tools[0].description'],
    ['strict that is not a boolean', [{ type: 'function', name: 'f', strict: 'yes' }], 'tools[0].strict'],
  ])('refuses %s', (_what, tools, path) => {
    expect(pathOf(() => readTools(tools))).toBe(path);
  });
});

describe('readToolChoice', () => {
  const tools = readTools([weather]);
  const noTools = readTools(undefined);

  it('passes auto, none and required, and a named function in chat form', () => {
    expect(readToolChoice(undefined, tools)).toEqual({ chat: undefined, echo: 'auto' });
    expect(readToolChoice('none', tools)).toEqual({ chat: 'none', echo: 'none' });
    expect(readToolChoice('required', tools)).toEqual({ chat: 'required', echo: 'required' });
    expect(readToolChoice({ type: 'function', name: 'weather' }, tools)).toEqual({ chat: { type: 'function', function: { name: 'weather' } }, echo: { type: 'function', name: 'weather' } });
  });

  it('sends no tool_choice to an engine that gets no tools', () => {
    expect(readToolChoice('auto', noTools)).toEqual({ chat: undefined, echo: 'auto' });
  });

  it.each([
    ['a function no tool has', { type: 'function', name: 'clock' }, tools, 'tool_choice.name'],
    ['a function without tools', { type: 'function', name: 'weather' }, noTools, 'tool_choice.name'],
    ['required without tools', 'required', noTools, 'tool_choice'],
    ['an unknown mode', 'always', tools, 'tool_choice'],
    ['a hosted tool type', { type: 'web_search_preview' }, tools, 'tool_choice.type'],
  ])('refuses %s', (_what, choice, known, path) => {
    expect(pathOf(() => readToolChoice(choice, known))).toBe(path);
  });
});

describe('readText', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };

  it('maps text, json_object and json_schema to response_format', () => {
    expect(readText(undefined)).toEqual({ responseFormat: undefined, echo: { format: { type: 'text' }, verbosity: 'medium' } });
    expect(readText({ format: { type: 'text' }, verbosity: 'low' })).toEqual({ responseFormat: undefined, echo: { format: { type: 'text' }, verbosity: 'low' } });
    expect(readText({ format: { type: 'json_object' } }).responseFormat).toEqual({ type: 'json_object' });
    const read = readText({ format: { type: 'json_schema', name: 'count', schema, strict: true, description: 'a count' } });
    expect(read.responseFormat).toEqual({ type: 'json_schema', json_schema: { name: 'count', schema, strict: true, description: 'a count' } });
    expect(read.echo).toEqual({ format: { type: 'json_schema', name: 'count', schema, strict: true, description: 'a count' }, verbosity: 'medium' });
  });

  it.each([
    ['text that is not an object', 'json', 'text'],
    ['a bad verbosity', { verbosity: 'loud' }, 'text.verbosity'],
    ['an unknown format type', { format: { type: 'xml' } }, 'text.format.type'],
    ['a json_schema without a name', { format: { type: 'json_schema', schema } }, 'text.format.name'],
    ['a json_schema name with spaces', { format: { type: 'json_schema', name: 'a b', schema } }, 'text.format.name'],
    ['a json_schema without a schema', { format: { type: 'json_schema', name: 'n' } }, 'text.format.schema'],
    ['a schema that is a list', { format: { type: 'json_schema', name: 'n', schema: [] } }, 'text.format.schema'],
    ['strict that is not a boolean', { format: { type: 'json_schema', name: 'n', schema, strict: 1 } }, 'text.format.strict'],
  ])('refuses %s', (_what, text, path) => {
    expect(pathOf(() => readText(text))).toBe(path);
  });
});
