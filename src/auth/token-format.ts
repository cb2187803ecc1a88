// Raw API tokens: `svc_<id>.<secret>`. The id (8 hex characters) indexes tokens.toml; the
// secret (32 random bytes, base64url: 43 characters) is verified against the row's argon2id
// hash and never stored.
import { randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'svc_';
const TOKEN = /^svc_([0-9a-f]{8})\.([A-Za-z0-9_-]{43})$/;

export interface ParsedToken {
  readonly id: string;
  readonly secret: string;
}

export function parseToken(raw: string): ParsedToken | undefined {
  const match = TOKEN.exec(raw);
  return match ? { id: match[1]!, secret: match[2]! } : undefined;
}

/** A new token whose id is not one of `taken`. */
export function newToken(taken: ReadonlySet<string>): ParsedToken & { readonly raw: string } {
  let id: string;
  do id = randomBytes(4).toString('hex');
  while (taken.has(id));
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, raw: `${TOKEN_PREFIX}${id}.${secret}` };
}

/**
 * The credential of an Authorization header: undefined without one, '' for one that is not
 * a bearer (Basic, a bare word), else the bearer's value. The scheme is case-insensitive.
 */
export function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match ? match[1]! : '';
}
