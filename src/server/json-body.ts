// JSON request bodies, one parser for the /v1 front door and Fastify's routes alike.
// - Nesting is bounded (MAX_JSON_DEPTH): JSON.parse takes any depth, but the code that walks
//   a body afterwards (schemas, merges, the redactor) recurses, and 100,000 levels overflow
//   its stack. No request svc serves comes near the bound; a deeper body is request.too_deep.
// - Fastify's own parser refuses a `__proto__` key (and a `constructor` holding a
//   `prototype`), rightly: such a key survives JSON.parse as an own property and changes an
//   object's prototype once copied with Object.assign. It reports that as "not valid JSON",
//   which sends a user looking for a syntax error; this parser says request.invalid, naming
//   where the key is.
// - Outside /v1 a NUL character is refused (`nul: true`): nothing an /api or /mcp body reaches
//   can hold one (Postgres text and jsonb, a program's argv and environment, file names), and
//   refused here it names its field instead of failing later as an internal error.
import { RequestError } from '../protocol/errors.js';
import { clip, MAX_JSON_DEPTH, NUL_REFUSED } from '../protocol/input-bounds.js';
import { joinPath } from '../protocol/issues.js';

type Path = PropertyKey[];
const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * The path to the first container nested deeper than the bound, or undefined. It recurses at
 * most MAX_JSON_DEPTH frames, whatever the depth of `value`.
 */
function tooDeepPath(value: object, depth: number): Path | undefined {
  if (depth > MAX_JSON_DEPTH) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (!isContainer(child)) continue;
      const found = tooDeepPath(child, depth + 1);
      if (found) return [i, ...found];
    }
    return undefined;
  }
  for (const key in value) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (!isContainer(child)) continue;
    const found = tooDeepPath(child, depth + 1);
    if (found) return [key, ...found];
  }
  return undefined;
}

/**
 * The first key or string that `refused` flags, with its path (depth is already bounded).
 * `refused` sees each key and each string value; it answers why it refuses one, or undefined.
 */
function findRefused(value: unknown, refused: (text: string, isKey: boolean, parent: unknown) => string | undefined, path: Path = []): { path: Path; why: string } | undefined {
  if (typeof value === 'string') {
    const why = refused(value, false, undefined);
    return why ? { path, why } : undefined;
  }
  if (!isContainer(value)) return undefined;
  const entries: [PropertyKey, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value);
  for (const [key, child] of entries) {
    const why = typeof key === 'string' ? refused(key, true, child) : undefined;
    if (why) return { path: [...path, key], why };
    const found = findRefused(child, refused, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

const PROTOTYPE_KEY = 'this key is refused: it can change object prototypes';

function prototypeKey(text: string, isKey: boolean, child: unknown): string | undefined {
  if (!isKey) return undefined;
  if (text === '__proto__') return PROTOTYPE_KEY;
  return text === 'constructor' && isContainer(child) && Object.hasOwn(child, 'prototype') ? PROTOTYPE_KEY : undefined;
}

const hasNul = (text: string) => (text.includes('\u0000') ? NUL_REFUSED : undefined);

/** Whether a request path is under /v1, whose bodies may carry NUL (they go to an engine, as they came). */
export const isV1Path = (url: string): boolean => url.startsWith('/v1/');

export interface JsonBodyOptions {
  /** Refuse a NUL character in any key or string (every body outside /v1). */
  nul?: boolean;
}

/**
 * Parse a JSON body; an empty or malformed one is request.invalid_json, one nested deeper
 * than MAX_JSON_DEPTH request.too_deep, a refused key (or NUL) request.invalid.
 */
export function parseJsonBody(text: string, options: JsonBodyOptions = {}): unknown {
  if (text.length === 0) throw new RequestError('request.invalid_json', 'The body is empty but Content-Type says JSON.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RequestError('request.invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  if (!isContainer(value)) return value;
  const deep = tooDeepPath(value, 1);
  if (deep) {
    const where = joinPath(deep);
    throw new RequestError('request.too_deep', `The body nests deeper than ${MAX_JSON_DEPTH} levels (at ${clip(where)}); svc refuses it.`, {
      max_depth: MAX_JSON_DEPTH,
      problems: [{ path: where, message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  }
  // Each scan runs only when what it looks for can be there at all: the common body pays a search of its text.
  // A NUL can only be written \u0000 in JSON (a raw one is a syntax error).
  const keys = text.includes('__proto__') || text.includes('constructor');
  const nul = options.nul === true && text.includes('\\u0000');
  if (!keys && !nul) return value;
  const found = findRefused(value, (candidate, isKey, child) => (keys ? prototypeKey(candidate, isKey, child) : undefined) ?? (nul ? hasNul(candidate) : undefined));
  if (found) {
    const key = found.path[found.path.length - 1];
    // A refused `constructor` is named by the `prototype` under it, the part that does harm.
    const where = joinPath(found.why === PROTOTYPE_KEY && key === 'constructor' ? [...found.path, 'prototype'] : found.path) || '(the body)';
    const what = found.why === PROTOTYPE_KEY
      ? `The body has the key "${String(key)}" at ${clip(where)}, which svc refuses (such keys can change object prototypes); remove it.`
      : `The body has a NUL character (\\u0000) at ${clip(where)}, which svc refuses (no store or program svc passes it to can hold one); remove it.`;
    throw new RequestError('request.invalid', what, { problems: [{ path: where, message: found.why }] });
  }
  return value;
}
