// Reading `response_format`: text, any JSON object, or JSON valid against a schema. The
// JSON kinds are served by a grammar that admits only such documents, so the answer always
// parses and validates, whatever the model's weights; a schema keyword the grammar cannot
// honour is a 400 naming its path (never a constraint silently dropped).
import { invalidAt, isObject, type Json } from './field-errors.js';
import { anyJsonObjectGrammar, jsonSchemaGrammar } from './json-grammar/index.js';
import { grammarOrInvalid } from './schema-errors.js';

/** null = free text; else the GBNF every answer must match. */
export type ResponseGrammar = string | null;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

function schemaGrammar(schema: unknown, path: string): string {
  if (!isObject(schema) && typeof schema !== 'boolean') throw invalidAt(path, 'must be a JSON Schema (an object)');
  return grammarOrInvalid(() => jsonSchemaGrammar(schema, path));
}

function jsonSchemaFormat(value: unknown): string {
  if (!isObject(value)) throw invalidAt('response_format.json_schema', 'is required with type "json_schema": {name, schema, strict}');
  const { name, strict, description } = value;
  if (name !== undefined && (typeof name !== 'string' || !NAME.test(name))) throw invalidAt('response_format.json_schema.name', `must be 1-64 letters, digits, _ or -; got ${JSON.stringify(name)}`);
  if (strict !== undefined && strict !== null && typeof strict !== 'boolean') throw invalidAt('response_format.json_schema.strict', 'must be a boolean');
  if (description !== undefined && typeof description !== 'string') throw invalidAt('response_format.json_schema.description', 'must be a string');
  // strict or not, the answer is held to the schema: the grammar is the only way this engine has.
  if (value.schema === undefined || value.schema === null) return anyJsonObjectGrammar();
  return schemaGrammar(value.schema, 'response_format.json_schema.schema');
}

export function readResponseFormat(body: Json): ResponseGrammar {
  const format = body.response_format;
  if (format === undefined || format === null) return null;
  if (!isObject(format)) throw invalidAt('response_format', 'must be an object such as {"type": "json_object"}');
  switch (format.type) {
    case 'text':
      return null;
    case 'json_object':
      // llama-server's extension: a schema next to json_object constrains it the same way.
      return format.schema === undefined ? anyJsonObjectGrammar() : schemaGrammar(format.schema, 'response_format.schema');
    case 'json_schema':
      return jsonSchemaFormat(format.json_schema);
    default:
      throw invalidAt('response_format.type', `must be "text", "json_object" or "json_schema"; got ${JSON.stringify(format.type)}`);
  }
}
