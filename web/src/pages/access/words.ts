// The Access page's words for what /api/auth answers: who the caller is, what a scope
// allows (docs/auth.md, "Scopes"), and when a token was last used.
import type { AuthStatusPayload } from '../../../../src/protocol/auth.js';
import type { TokenScope } from '../../../../src/protocol/vocabulary.js';

export const SCOPE_WORDS: Readonly<Record<TokenScope, string>> = {
  admin: 'everything, including token management',
  all: '/v1 and every read of /api; no change, no token management',
  'v1-only': 'the OpenAI-compatible /v1 routes only',
  'read-only': 'reads of /api and GET /v1/models; no inference, no change',
};

export function identityWords(identity: AuthStatusPayload['identity']): string {
  switch (identity.kind) {
    case 'anonymous':
      return 'anonymous (no credential)';
    case 'token':
      return `token "${identity.label}" (${identity.id}, scope ${identity.scope})`;
    case 'proxy':
      return `${identity.label}, signed in at the proxy (admin)`;
  }
}

/** A timestamp as "2026-11-23 18:34" (UTC), or "never". */
export function when(iso: string | null): string {
  if (iso === null) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
