// Bad input is a 400 request.invalid naming the path of the problem, in the message and in
// details.problems, as every other /v1 route does it. The readers here check one scalar
// field each; null counts as absent, as OpenAI reads it.
import { RequestError } from '../../protocol/errors.js';
import { given, type Json } from './types.js';

export const invalid = (path: string, message: string): RequestError =>
  new RequestError('request.invalid', `\`${path}\` ${message}`, { problems: [{ path, message }] });

/** `prefix.key`, or `key` at the top level. */
export const join = (prefix: string, key: string | number): string =>
  typeof key === 'number' ? `${prefix}[${key}]` : prefix ? `${prefix}.${key}` : key;

export function optionalString(body: Json, key: string, prefix = ''): string | undefined {
  const value = given(body, key);
  if (value === undefined || typeof value === 'string') return value;
  throw invalid(join(prefix, key), `must be a string; got ${describe(value)}`);
}

export function optionalBoolean(body: Json, key: string, prefix = ''): boolean | undefined {
  const value = given(body, key);
  if (value === undefined || typeof value === 'boolean') return value;
  throw invalid(join(prefix, key), `must be a boolean; got ${describe(value)}`);
}

export function optionalNumber(body: Json, key: string, range: { min: number; max: number; integer?: boolean }): number | undefined {
  const value = given(body, key);
  if (value === undefined) return undefined;
  const kind = range.integer ? 'an integer' : 'a number';
  if (typeof value !== 'number' || !Number.isFinite(value) || (range.integer && !Number.isInteger(value)) || value < range.min || value > range.max) {
    throw invalid(key, `must be ${kind} from ${range.min} to ${range.max}; got ${describe(value)}`);
  }
  return value;
}

export function optionalEnum<T extends string>(body: Json, key: string, allowed: readonly T[], prefix = ''): T | undefined {
  const value = given(body, key);
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(join(prefix, key), `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}; got ${describe(value)}`);
}

/** A short rendering of a bad value for a message: its JSON when small, else its type. */
export function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 60 ? text : `a ${typeof value}`;
}
