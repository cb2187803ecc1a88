// Secrets never reach the activity database: the log is readable by anyone with dashboard
// access and outlives the settings it describes, so a token written here would leak twice.
// Secrets hide under secret-named keys, and inside URLs (a password in a settings value's
// userinfo): both are masked (protocol/url-secrets.ts).
import { maskUrlSecrets } from '../protocol/url-secrets.js';
import { MAX_JSON_DEPTH } from '../protocol/input-bounds.js';

const SECRET_KEY = /(^|_)(api_?key|token|secret|password|hash|authorization)($|_)/i;
export const REDACTED = '***';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Deeper than this, a container is not copied but named: no detail svc records is that deep. */
const MAX_DEPTH = 2 * MAX_JSON_DEPTH;
export const TOO_DEEP = '[too deep]';

/**
 * A copy of `value` with every secret-named key, at any depth and inside arrays, set to
 * '***', and every URL's password masked. Values other than strings, plain objects and
 * arrays (dates, errors) are left for JSON.stringify to render. A reference cycle becomes
 * '[circular]' instead of recursing forever, and a container past MAX_DEPTH levels
 * '[too deep]' instead of overflowing the stack.
 */
export function redactSecrets(value: unknown, ancestors: readonly object[] = []): unknown {
  if (typeof value === 'string') return maskUrlSecrets(value);
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  if (ancestors.includes(value)) return '[circular]';
  if (ancestors.length >= MAX_DEPTH) return TOO_DEEP;
  const path = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, path));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, isSecretKey(key) ? REDACTED : redactSecrets(item, path)]),
  );
}
