// JSON request bodies. Fastify's own parser refuses a `__proto__` key (and a `constructor`
// holding a `prototype`), rightly: such a key survives JSON.parse as an own property and
// changes an object's prototype once copied with Object.assign. But it reports the refusal
// as "not valid JSON", which sends a user looking for a syntax error. This parser refuses
// the same keys, as request.invalid naming where the key is.
import { RequestError } from '../protocol/errors.js';
import { joinPath } from '../protocol/issues.js';

/** Keys refused anywhere in a body: `__proto__`, and `constructor` when it carries a `prototype`. */
function forbiddenKeyPath(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = forbiddenKeyPath(value[i], [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    if (key === '__proto__') return [...path, key];
    if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) return [...path, key, 'prototype'];
    const found = forbiddenKeyPath(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** Parse a JSON body; an empty or malformed one is request.invalid_json, a refused key request.invalid. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new RequestError('request.invalid_json', 'The body is empty but Content-Type says JSON.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RequestError('request.invalid_json', `The body is not valid JSON: ${(error as Error).message}`);
  }
  // The scan only runs when one of the keys can be there at all: the common body pays one search.
  if (!text.includes('__proto__') && !text.includes('constructor')) return value;
  const path = forbiddenKeyPath(value);
  if (path) {
    const where = joinPath(path);
    throw new RequestError('request.invalid', `The body has the key "${String(path[path.length - 1] === 'prototype' ? 'constructor' : '__proto__')}" at ${where}, which svc refuses (such keys can change object prototypes); remove it.`, {
      problems: [{ path: where, message: 'this key is refused: it can change object prototypes' }],
    });
  }
  return value;
}
