// The request's tools as node-llama-cpp's ChatModelFunctions: what the chat wrapper writes
// into the prompt (each function with its parameters, in the model's own format) and what
// LlamaChat listens for when tool_choice is auto. node-llama-cpp reads a subset of JSON
// Schema (GbnfJsonSchema); this keeps what it can read and widens the rest, which only
// loosens the prompt's description: the arguments themselves come from our own grammar.
import type { ChatModelFunctions, GbnfJsonSchema } from 'node-llama-cpp';
import { isObject, type Json } from './field-errors.js';
import type { ToolFunction } from './tool-request.js';

type Scalar = string | number | boolean | null;
const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'null'] as const;
const ANY: GbnfJsonSchema = { type: [...SCALAR_TYPES] };
const FORMATS = new Set(['date-time', 'time', 'date']);

const isScalar = (v: unknown): v is Scalar => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const described = (schema: Json) => (typeof schema.description === 'string' ? { description: schema.description } : {});
const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

function objectSchema(s: Json): GbnfJsonSchema {
  const properties = isObject(s.properties) ? Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, docSchema(v)])) : {};
  const required = Array.isArray(s.required) ? s.required.filter((k): k is string => typeof k === 'string' && k in properties) : undefined;
  const extra = s.additionalProperties;
  return {
    type: 'object', properties, ...(required && { required }), ...described(s),
    ...(extra === true || isObject(extra) ? { additionalProperties: isObject(extra) ? docSchema(extra) : true } : {}),
  };
}

function typedSchema(type: string, s: Json): GbnfJsonSchema {
  if (type === 'object') return objectSchema(s);
  if (type === 'array') {
    const minItems = count(s.minItems);
    const maxItems = count(s.maxItems);
    return { type: 'array', items: s.items === undefined ? ANY : docSchema(s.items), ...(minItems !== undefined && { minItems }), ...(maxItems !== undefined && { maxItems }), ...described(s) };
  }
  if (type === 'string' && typeof s.format === 'string' && FORMATS.has(s.format)) return { type: 'string', format: s.format as 'date', ...described(s) };
  if (type === 'string') {
    const minLength = count(s.minLength);
    const maxLength = count(s.maxLength);
    return { type: 'string', ...(minLength !== undefined && { minLength }), ...(maxLength !== undefined && { maxLength }), ...described(s) };
  }
  if ((SCALAR_TYPES as readonly string[]).includes(type)) return { type: type as (typeof SCALAR_TYPES)[number], ...described(s) };
  return ANY;
}

/** A JSON Schema as node-llama-cpp can read it: the same shape where it can, wider where it cannot. */
export function docSchema(schema: unknown): GbnfJsonSchema {
  if (!isObject(schema)) return ANY;
  if (isScalar(schema.const)) return { const: schema.const, ...described(schema) };
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.filter(isScalar);
    return values.length > 0 ? { enum: values, ...described(schema) } : ANY;
  }
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options) && options.length > 0) return { oneOf: options.map(docSchema), ...described(schema) };
  const type = schema.type;
  if (typeof type === 'string') return typedSchema(type, schema);
  if (Array.isArray(type) && type.length > 0) return { oneOf: type.map((t) => (typeof t === 'string' ? typedSchema(t, schema) : ANY)), ...described(schema) };
  if (isObject(schema.properties)) return objectSchema(schema);
  return ANY;
}

export function chatFunctions(functions: readonly ToolFunction[]): ChatModelFunctions {
  return Object.fromEntries(functions.map((f) => [f.name, { ...(f.description !== null && { description: f.description }), params: docSchema(f.parameters) }]));
}
