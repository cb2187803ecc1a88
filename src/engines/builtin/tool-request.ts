// Reading `tools`, `tool_choice` and `parallel_tool_calls` (OpenAI's function tools). Every
// function's `parameters` is compiled to a grammar here, so a schema the grammar cannot
// honour is a 400 naming its path before anything is generated, whichever function the
// model later picks. Calls are generated as one JSON array (`toolCallsGrammar`), so their
// arguments always validate against the function's parameters.
import { invalidAt, isObject, type Json } from './field-errors.js';
import { jsonSchemaGrammar, toolCallsGrammar } from './json-grammar/index.js';
import { grammarOrInvalid } from './schema-errors.js';

export interface ToolFunction {
  name: string;
  description: string | null;
  /** JSON Schema of the arguments; a function without parameters takes an empty object. */
  parameters: unknown;
  /** Where the parameters are in the request, for the grammar's problems. */
  path: string;
}

/** auto: the model chooses; none: no call; required: at least one call; {name}: that function. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface ToolsRequest {
  functions: ToolFunction[];
  choice: ToolChoice;
  /** More than one call in an answer (`parallel_tool_calls`, default true). */
  parallel: boolean;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const NO_PARAMETERS = { type: 'object', properties: {}, additionalProperties: false };

function readFunction(raw: unknown, i: number, seen: Set<string>): ToolFunction {
  const path = `tools[${i}]`;
  if (!isObject(raw)) throw invalidAt(path, 'must be an object');
  if (raw.type !== 'function') throw invalidAt(`${path}.type`, `must be "function"; got ${JSON.stringify(raw.type)} (the built-in engine serves function tools only)`);
  const fn = raw.function;
  if (!isObject(fn)) throw invalidAt(`${path}.function`, 'must be an object');
  if (fn.name === undefined || fn.name === null) throw invalidAt(`${path}.function.name`, 'is required');
  if (typeof fn.name !== 'string' || !NAME.test(fn.name)) throw invalidAt(`${path}.function.name`, `must be 1-64 letters, digits, _ or -; got ${JSON.stringify(fn.name)}`);
  if (seen.has(fn.name)) throw invalidAt(`${path}.function.name`, `"${fn.name}" is declared by an earlier tool already`);
  seen.add(fn.name);
  if (fn.description !== undefined && fn.description !== null && typeof fn.description !== 'string') throw invalidAt(`${path}.function.description`, 'must be a string');
  if (fn.strict !== undefined && fn.strict !== null && typeof fn.strict !== 'boolean') throw invalidAt(`${path}.function.strict`, 'must be a boolean');
  const parameters = fn.parameters ?? NO_PARAMETERS;
  if (!isObject(parameters)) throw invalidAt(`${path}.function.parameters`, 'must be a JSON Schema object');
  const where = `${path}.function.parameters`;
  grammarOrInvalid(() => jsonSchemaGrammar(parameters, where));
  return { name: fn.name, description: typeof fn.description === 'string' ? fn.description : null, parameters, path: where };
}

function readChoice(value: unknown, functions: readonly ToolFunction[]): ToolChoice {
  if (value === undefined || value === null) return functions.length > 0 ? 'auto' : 'none';
  if (value === 'auto' || value === 'none' || value === 'required') {
    if (value === 'required' && functions.length === 0) throw invalidAt('tool_choice', 'is "required" but the request declares no tools');
    return value;
  }
  if (typeof value === 'string') throw invalidAt('tool_choice', `must be "auto", "none", "required" or {"type": "function", "function": {"name": ...}}; got ${JSON.stringify(value)}`);
  if (!isObject(value)) throw invalidAt('tool_choice', 'must be a string or an object');
  if (value.type !== 'function') throw invalidAt('tool_choice.type', `must be "function"; got ${JSON.stringify(value.type)}`);
  const name = (value.function as Json | undefined)?.name;
  if (typeof name !== 'string') throw invalidAt('tool_choice.function.name', 'is required: the name of a declared tool');
  if (!functions.some((f) => f.name === name)) throw invalidAt('tool_choice.function.name', `is "${name}", which no tool declares${functions.length ? ` (declared: ${functions.map((f) => f.name).join(', ')})` : ''}`);
  return { name };
}

export function readTools(body: Json): ToolsRequest {
  if (body.functions !== undefined || body.function_call !== undefined) {
    throw invalidAt(body.functions !== undefined ? 'functions' : 'function_call', "is OpenAI's deprecated form; send `tools` and `tool_choice` instead");
  }
  const raw = body.tools ?? [];
  if (!Array.isArray(raw)) throw invalidAt('tools', 'must be a list');
  const seen = new Set<string>();
  const functions = raw.map((tool: unknown, i) => readFunction(tool, i, seen));
  const parallel = body.parallel_tool_calls ?? true;
  if (typeof parallel !== 'boolean') throw invalidAt('parallel_tool_calls', 'must be a boolean');
  return { functions, choice: readChoice(body.tool_choice, functions), parallel };
}

/** The functions a call may name under `choice` (all of them, or the named one). */
export function callableFunctions(tools: ToolsRequest, only?: readonly string[]): ToolFunction[] {
  const choice = tools.choice;
  const named = typeof choice === 'object' ? [choice.name] : only;
  return named ? tools.functions.filter((f) => named.includes(f.name)) : tools.functions;
}

/** GBNF for the calls of one answer: a JSON array of {name, arguments}, one call unless parallel. */
export function callsGrammar(tools: ToolsRequest, only?: readonly string[]): string {
  const functions = callableFunctions(tools, only).map((f) => ({ name: f.name, parameters: f.parameters, path: f.path }));
  return grammarOrInvalid(() => toolCallsGrammar(functions, { parallel: tools.parallel }));
}
