// Which JSON Schema keywords the grammar holds, and the shape each one's value must have. A
// keyword outside the list is refused by name, never ignored: an ignored `multipleOf` would
// let the model answer values the client's own validator then rejects.
import { own } from '../../../lib/own.js';

/** A schema the compiler refuses: `path` is where (e.g. `response_format.json_schema.schema.properties.age.multipleOf`). */
export class SchemaProblem extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
    this.name = 'SchemaProblem';
  }
}

export type SchemaObject = Record<string, unknown>;

export const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `path.key`, or `path["odd key"]` where the key is not a plain name. */
export const childPath = (path: string, key: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
export const itemPath = (path: string, index: number): string => `${path}[${index}]`;

/** Accepted and ignored: they describe, they do not constrain. `$defs`/`definitions` hold what `$ref` points at. */
export const ANNOTATIONS = new Set(['title', 'description', '$schema', '$id', '$comment', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly', 'strict', '$defs', 'definitions']);

export const TYPES = ['null', 'boolean', 'object', 'array', 'string', 'number', 'integer'] as const;
export type JsonType = (typeof TYPES)[number];

export const SUPPORTED_FORMATS = new Set(['date', 'time', 'date-time', 'uuid']);

const naturalNumber = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const finiteNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isSchema = (v: unknown) => typeof v === 'boolean' || isObject(v);
const nonEmptyList = (v: unknown) => Array.isArray(v) && v.length > 0;

/** What each enforced keyword's value must be, in words for the problem. */
const SHAPES: Record<string, [check: (v: unknown) => boolean, mustBe: string]> = {
  type: [(v) => (typeof v === 'string' ? isType(v) : nonEmptyList(v) && (v as unknown[]).every((t) => typeof t === 'string' && isType(t))), `one of ${TYPES.join(', ')}, or a non-empty list of them`],
  properties: [(v) => isObject(v) && Object.values(v).every(isSchema), 'an object of schemas'],
  required: [(v) => Array.isArray(v) && v.every((n) => typeof n === 'string'), 'a list of property names'],
  additionalProperties: [isSchema, 'a boolean or a schema'],
  enum: [nonEmptyList, 'a non-empty list'],
  const: [() => true, ''],
  minLength: [naturalNumber, 'a non-negative integer'],
  maxLength: [naturalNumber, 'a non-negative integer'],
  pattern: [(v) => typeof v === 'string', 'a string (a regular expression)'],
  format: [(v) => typeof v === 'string' && SUPPORTED_FORMATS.has(v), `one of ${[...SUPPORTED_FORMATS].join(', ')} (other formats are not supported)`],
  minimum: [finiteNumber, 'a number'],
  maximum: [finiteNumber, 'a number'],
  exclusiveMinimum: [finiteNumber, 'a number'],
  exclusiveMaximum: [finiteNumber, 'a number'],
  items: [isSchema, 'a schema (a list of schemas, a tuple, is not supported)'],
  minItems: [naturalNumber, 'a non-negative integer'],
  maxItems: [naturalNumber, 'a non-negative integer'],
  anyOf: [(v) => nonEmptyList(v) && (v as unknown[]).every(isSchema), 'a non-empty list of schemas'],
  oneOf: [(v) => nonEmptyList(v) && (v as unknown[]).every(isSchema), 'a non-empty list of schemas'],
  $ref: [(v) => typeof v === 'string', 'a string'],
};

export const ENFORCED = new Set(Object.keys(SHAPES));

function isType(name: string): name is JsonType {
  return (TYPES as readonly string[]).includes(name);
}

/** Throws SchemaProblem at the first keyword the grammar cannot hold, or whose value is malformed. */
export function checkKeywords(schema: SchemaObject, path: string): void {
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    const shape = own(SHAPES, key);
    if (!shape) throw new SchemaProblem(childPath(path, key), "is not supported by the built-in engine's structured output (it cannot be enforced while generating)");
    if (!shape[0](value)) throw new SchemaProblem(childPath(path, key), `must be ${shape[1]}`);
  }
  for (const [low, high] of [['minLength', 'maxLength'], ['minItems', 'maxItems'], ['minimum', 'maximum']] as const) {
    if (typeof schema[low] === 'number' && typeof schema[high] === 'number' && schema[low] > schema[high]) {
      throw new SchemaProblem(childPath(path, low), `is above ${high}: no value can satisfy both`);
    }
  }
}

/** The listed types, as a list. */
export function declaredTypes(schema: SchemaObject): JsonType[] | undefined {
  const type = schema.type;
  if (type === undefined) return undefined;
  return [...new Set(typeof type === 'string' ? [type] : (type as string[]))] as JsonType[];
}

/** The keyword (if any) among `keys` that `schema` has. */
export const firstOf = (schema: SchemaObject, keys: Iterable<string>): string | undefined => [...keys].find((key) => key in schema);
