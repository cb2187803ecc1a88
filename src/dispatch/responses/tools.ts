// `tools`, `tool_choice` and `text` of a Responses body, each read into its chat
// completions form and the form the Response object echoes.
// - Only function tools translate: Responses' flat {type, name, parameters, ...} becomes
//   chat's {type, function: {...}}. Hosted tools (web_search, file_search, mcp, ...) run
//   on OpenAI's side; an engine behind svc has none, so they are refused, not ignored.
// - tool_choice and parallel_tool_calls go to the engine only with tools: OpenAI's chat API
//   refuses them without, and the built-in engine refuses tools at all.
// - text.format json_schema becomes response_format json_schema; the schema's own
//   validity is the engine's to judge (llama-server turns it into a grammar).
import { describe, invalid, join, optionalBoolean, optionalEnum, optionalString } from './invalid.js';
import { given, isObject, type Json } from './types.js';

export interface ToolsRead {
  chat: Json[];
  echo: Json[];
  names: ReadonlySet<string>;
}

export function readTools(value: unknown): ToolsRead {
  if (value === undefined || value === null) return { chat: [], echo: [], names: new Set() };
  if (!Array.isArray(value)) throw invalid('tools', `must be a list of function tools; got ${describe(value)}`);
  const names = new Set<string>();
  const chat: Json[] = [];
  const echo: Json[] = value.map((tool, index) => {
    const path = join('tools', index);
    if (!isObject(tool)) throw invalid(path, `must be a tool object; got ${describe(tool)}`);
    if (tool.type !== 'function') {
      throw invalid(join(path, 'type'), `${describe(tool.type)} tools cannot be translated to chat completions: hosted tools run on OpenAI's side; svc takes "function" tools`);
    }
    const name = optionalString(tool, 'name', path);
    if (name === undefined || name === '') throw invalid(join(path, 'name'), 'is required (a non-empty string)');
    if (names.has(name)) throw invalid(join(path, 'name'), `${JSON.stringify(name)} names an earlier tool too; tool names must be unique`);
    names.add(name);
    const description = optionalString(tool, 'description', path);
    const strict = optionalBoolean(tool, 'strict', path);
    const parameters = given(tool, 'parameters');
    if (parameters !== undefined && !isObject(parameters)) throw invalid(join(path, 'parameters'), `must be a JSON Schema object; got ${describe(parameters)}`);
    chat.push({ type: 'function', function: { name, ...(description !== undefined && { description }), ...(parameters !== undefined && { parameters }), ...(strict !== undefined && { strict }) } });
    return { type: 'function', name, description: description ?? null, parameters: parameters ?? null, strict: strict ?? null };
  });
  return { chat, echo, names };
}

export interface ToolChoiceRead {
  /** undefined: send none. */
  chat: unknown;
  echo: unknown;
}

export function readToolChoice(value: unknown, tools: ToolsRead): ToolChoiceRead {
  if (value === undefined || value === null) return { chat: undefined, echo: 'auto' };
  const withTools = (chat: unknown) => (tools.names.size > 0 ? chat : undefined);
  if (value === 'auto' || value === 'none') return { chat: withTools(value), echo: value };
  if (value === 'required') {
    if (tools.names.size === 0) throw invalid('tool_choice', '"required" needs at least one function tool in `tools`');
    return { chat: value, echo: value };
  }
  if (!isObject(value)) throw invalid('tool_choice', `must be "auto", "none", "required" or {type: "function", name}; got ${describe(value)}`);
  if (value.type !== 'function') throw invalid('tool_choice.type', `${describe(value.type)} cannot be translated to chat completions; svc takes {type: "function", name}`);
  const { name } = value;
  if (typeof name !== 'string' || !tools.names.has(name)) {
    const known = [...tools.names].map((n) => JSON.stringify(n)).join(', ');
    throw invalid('tool_choice.name', `${describe(name)} names no function in \`tools\`${known ? ` (${known})` : ' (there are none)'}`);
  }
  return { chat: { type: 'function', function: { name } }, echo: { type: 'function', name } };
}

export interface TextRead {
  /** The chat response_format; undefined for plain text. */
  responseFormat: Json | undefined;
  echo: Json;
}

const SCHEMA_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function readText(value: unknown): TextRead {
  if (value === undefined || value === null) return { responseFormat: undefined, echo: { format: { type: 'text' }, verbosity: 'medium' } };
  if (!isObject(value)) throw invalid('text', `must be an object ({format, verbosity}); got ${describe(value)}`);
  const verbosity = optionalEnum(value, 'verbosity', ['low', 'medium', 'high'], 'text') ?? 'medium';
  const format = given(value, 'format') ?? { type: 'text' };
  if (!isObject(format)) throw invalid('text.format', `must be an object; got ${describe(format)}`);
  if (format.type === 'text') return { responseFormat: undefined, echo: { format: { type: 'text' }, verbosity } };
  if (format.type === 'json_object') return { responseFormat: { type: 'json_object' }, echo: { format: { type: 'json_object' }, verbosity } };
  if (format.type !== 'json_schema') throw invalid('text.format.type', `must be "text", "json_object" or "json_schema"; got ${describe(format.type)}`);
  const { name, schema } = format;
  if (typeof name !== 'string' || !SCHEMA_NAME.test(name)) throw invalid('text.format.name', `must be 1 to 64 letters, digits, _ or -; got ${describe(name)}`);
  if (!isObject(schema)) throw invalid('text.format.schema', `must be a JSON Schema object; got ${describe(schema)}`);
  const strict = optionalBoolean(format, 'strict', 'text.format');
  const description = optionalString(format, 'description', 'text.format');
  const spec = { name, schema, ...(strict !== undefined && { strict }), ...(description !== undefined && { description }) };
  return { responseFormat: { type: 'json_schema', json_schema: spec }, echo: { format: { type: 'json_schema', ...spec }, verbosity } };
}
