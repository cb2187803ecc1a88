// The input schema of a tool server's tool, as the loop offers it to a model: the keywords
// every engine's tool calling can take. A tool server writes its schemas for its own validator
// (`format: "uri"`, `propertyNames`, tuples, `allOf`, regular expressions in any dialect), and
// an engine that enforces schemas while generating (the built-in engine's grammar) refuses a
// keyword it cannot hold: one such tool would fail every omni request. The server still
// checks the arguments it is called with, so dropping a constraint here loses no safety; the
// model gets its guidance from the types, names and descriptions, which are kept.

const KEPT = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'enum', 'const', 'items', 'anyOf', 'oneOf',
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems',
  'title', 'description', 'default', 'examples', '$ref', '$defs', 'definitions',
]);
/** The string formats every engine that enforces schemas here knows. */
const FORMATS = new Set(['date', 'time', 'date-time', 'uuid']);
/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions']);

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of `schema` with only portable keywords, recursively; never throws. */
export function portableSchema(schema: unknown): Schema {
  if (!isSchema(schema)) return { type: 'object', properties: {} };
  const out = portable(schema);
  return out.type === undefined && out.properties === undefined ? { type: 'object', ...out } : out;
}

function portable(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format') {
      if (typeof value === 'string' && FORMATS.has(value)) out.format = value;
    } else if (!KEPT.has(key)) {
      continue;
    } else if (SCHEMA_MAPS.has(key)) {
      if (isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, isSchema(sub) ? portable(sub) : sub]));
    } else if (key === 'items') {
      // A tuple (a list of schemas) is dropped: any item goes.
      if (isSchema(value)) out.items = portable(value);
      else if (typeof value === 'boolean') out.items = value;
    } else if (key === 'anyOf' || key === 'oneOf') {
      if (Array.isArray(value) && value.length > 0) out[key] = value.map((sub) => (isSchema(sub) ? portable(sub) : sub));
    } else if (key === 'additionalProperties') {
      out[key] = isSchema(value) ? portable(value) : value;
    } else {
      out[key] = value;
    }
  }
  return out;
}
