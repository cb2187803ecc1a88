// oneOf means exactly one branch matches. A grammar can only offer the branches side by
// side (as anyOf), so a value written from one branch must be one that every other branch
// rejects. That is proved here, conservatively, in the ways real schemas make branches
// exclusive: different types, different enum/const values, or a discriminator (a property
// every value of one branch has, with const/enum values another branch's same property
// refuses). Where it cannot be proved the oneOf is refused rather than risk an invalid answer.
import { declaredTypes, isObject, type JsonType, type SchemaObject } from './schema-check.js';
import { canonicalJson, hasType, typeOfValue, writtenTypes } from './schema-types.js';

/** JSON types with numbers split, since an integer validates as `number` but 1.5 not as `integer`. */
type Kind = Exclude<JsonType, 'number'> | 'fraction';
const ALL: ReadonlySet<Kind> = new Set<Kind>(['null', 'boolean', 'object', 'array', 'string', 'integer', 'fraction']);
const MAX_DEPTH = 16;

const kindsOf = (type: JsonType): Kind[] => (type === 'number' ? ['integer', 'fraction'] : [type]);
const kindOfValue = (value: unknown): Kind => (typeOfValue(value) === 'number' ? 'fraction' : (typeOfValue(value) as Kind));
const intersect = (a: ReadonlySet<Kind>, b: ReadonlySet<Kind>) => new Set([...a].filter((k) => b.has(k)));

type Resolve = (pointer: string) => unknown;

function deref(schema: unknown, resolve: Resolve): unknown {
  for (let hops = 0; isObject(schema) && typeof schema.$ref === 'string' && hops < MAX_DEPTH; hops++) schema = resolve(schema.$ref);
  return schema;
}

/** enum/const values as the compiler writes them (of the declared types), or undefined. */
function listedValues(schema: SchemaObject): unknown[] | undefined {
  if (!('enum' in schema) && !('const' in schema)) return undefined;
  let values = Array.isArray(schema.enum) ? schema.enum : [schema.const];
  if ('const' in schema) values = values.filter((v) => canonicalJson(v) === canonicalJson(schema.const));
  const types = declaredTypes(schema);
  return types ? values.filter((v) => hasType(v, types)) : values;
}

/** The kinds of value the grammar writes for `schema` (an upper bound). */
function written(schema: unknown, resolve: Resolve, depth = 0): ReadonlySet<Kind> {
  schema = deref(schema, resolve);
  if (schema === false) return new Set();
  if (!isObject(schema) || depth > MAX_DEPTH) return ALL;
  const values = listedValues(schema);
  if (values) return new Set(values.map(kindOfValue));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return new Set(branches.flatMap((b) => [...written(b, resolve, depth + 1)]));
  const types = writtenTypes(schema);
  return types ? new Set(types.flatMap(kindsOf)) : ALL;
}

/** The kinds of value `schema` may accept (an upper bound). */
function accepted(schema: unknown, resolve: Resolve, depth = 0): ReadonlySet<Kind> {
  schema = deref(schema, resolve);
  if (schema === false) return new Set();
  if (!isObject(schema) || depth > MAX_DEPTH) return ALL;
  let kinds: ReadonlySet<Kind> = new Set(declaredTypes(schema)?.flatMap(kindsOf) ?? ALL);
  const values = listedValues(schema);
  if (values) kinds = intersect(kinds, new Set(values.map(kindOfValue)));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) kinds = intersect(kinds, new Set(branches.flatMap((b) => [...accepted(b, resolve, depth + 1)])));
  return kinds;
}

/** Does `schema` surely reject `value`? */
function rejects(schema: unknown, value: unknown, resolve: Resolve): boolean {
  schema = deref(schema, resolve);
  if (schema === false) return true;
  if (!isObject(schema)) return false;
  if (!accepted(schema, resolve).has(kindOfValue(value))) return true;
  const values = listedValues(schema);
  return values !== undefined && !values.some((v) => canonicalJson(v) === canonicalJson(value));
}

/** Does `other` reject every value the grammar writes for `branch`? */
function exclusive(branch: unknown, other: unknown, resolve: Resolve): boolean {
  [branch, other] = [deref(branch, resolve), deref(other, resolve)];
  const writes = written(branch, resolve);
  if (intersect(writes, accepted(other, resolve)).size === 0) return true;
  if (!isObject(branch) || !isObject(other)) return false;
  const values = listedValues(branch);
  if (values) return values.every((value) => rejects(other, value, resolve));
  // A discriminator: a property the branch always writes, with values `other` refuses there.
  if (writes.size !== 1 || !writes.has('object') || !isObject(branch.properties) || !isObject(other.properties) || !Array.isArray(branch.required)) return false;
  const theirs = other.properties;
  return branch.required.some((name) => {
    const mine = deref((branch.properties as SchemaObject)[name], resolve);
    const listed = isObject(mine) ? listedValues(mine) : undefined;
    return typeof name === 'string' && Object.hasOwn(theirs, name) && listed !== undefined && listed.every((v) => rejects(theirs[name], v, resolve));
  });
}

/** Why the branches may overlap, in words, or null when each written value matches its own branch only. */
export function oneOfOverlap(branches: readonly unknown[], resolve: Resolve): string | null {
  for (let i = 0; i < branches.length; i++) {
    for (let j = 0; j < branches.length; j++) {
      if (i === j || exclusive(branches[i], branches[j], resolve)) continue;
      return `has branches ${i} and ${j} that may both match one value (oneOf needs exactly one): use anyOf, or make them exclusive (different types, or a required property with different const values)`;
    }
  }
  return null;
}
