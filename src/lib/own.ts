// Looking a name up in a plain object finds what Object.prototype has as well: a request for
// the model, stack or profile "constructor" found a function and answered 500, and
// "__proto__" found Object.prototype itself. Names from input are looked up here, among
// the object's own properties only.

/** `record[key]` when `key` is the record's own property, else undefined. */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
