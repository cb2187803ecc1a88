// Who made a request, as the auth guard decided it.
import type { TokenScope } from '../protocol/vocabulary.js';

export type Identity =
  /** Default mode, or a public route in auth mode: nobody in particular. */
  | { readonly kind: 'anonymous' }
  /** A bearer token from tokens.toml; its label is the identity shown for its requests. */
  | { readonly kind: 'token'; readonly id: string; readonly label: string; readonly scope: TokenScope }
  /** A browser user the reverse proxy authenticated (X-Forwarded-Email): an admin (spec rule 1). */
  | { readonly kind: 'proxy'; readonly label: string; readonly scope: 'admin' };

export const ANONYMOUS: Identity = Object.freeze({ kind: 'anonymous' });

/** The scope an identity acts with; undefined for anonymous. */
export function scopeOf(identity: Identity): TokenScope | undefined {
  return identity.kind === 'anonymous' ? undefined : identity.scope;
}
