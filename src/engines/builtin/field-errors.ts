// A 400 that names where the problem is: the message starts with the field's path
// ('tools[1].function.name' ...) and details.problems carries {path, message}, the shape
// the catalogue gives request.invalid (src/protocol/errors.ts), so a client can point at it.
import { invalidRequest, type BuiltinEngineError } from './http-io.js';

export function invalidAt(path: string, message: string): BuiltinEngineError {
  return invalidRequest(`'${path}' ${message}`, { problems: [{ path, message }] });
}

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
