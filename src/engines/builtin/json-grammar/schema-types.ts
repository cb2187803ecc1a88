// Which JSON types a schema's grammar writes. With `type` that is the list; without it the
// keywords tell (`properties` means an object, `minLength` a string...), as llama.cpp's
// converter reads them: a value of another type would validate too (JSON Schema's keywords
// only speak about their own type), so writing only these is a subset, never wrong.
import { declaredTypes, type JsonType, type SchemaObject } from './schema-check.js';

const KEYWORD_TYPES: ReadonlyArray<[JsonType, readonly string[]]> = [
  ['object', ['properties', 'required', 'additionalProperties']],
  ['array', ['items', 'minItems', 'maxItems']],
  ['string', ['minLength', 'maxLength', 'pattern', 'format']],
  ['number', ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']],
];

/** The types to write, `number` standing for `integer` too when both are listed; undefined: any JSON value. */
export function writtenTypes(schema: SchemaObject): JsonType[] | undefined {
  const declared = declaredTypes(schema);
  if (declared) return declared.includes('number') ? declared.filter((t) => t !== 'integer') : declared;
  const inferred = KEYWORD_TYPES.filter(([, keys]) => keys.some((key) => key in schema)).map(([type]) => type);
  return inferred.length > 0 ? inferred : undefined;
}

/** The JSON type of a value, `integer` for whole numbers. */
export function typeOfValue(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** Does `value` have one of `types` (an integer is a number too)? */
export function hasType(value: unknown, types: readonly JsonType[]): boolean {
  const type = typeOfValue(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** Canonical JSON (keys sorted), so equal values compare equal as text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as SchemaObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
