// Request and answer shapes of /api/auth (docs/api.md, "Auth"), shared by the server and the CLI.
import { z } from 'zod';
import type { RouteAccess } from './access.js';
import { TOKEN_SCOPES, type TokenScope } from './vocabulary.js';

/** POST /api/auth/tokens. The scope is checked apart, so an unknown one is auth.invalid_scope. */
export const CreateTokenRequestSchema = z.strictObject({
  label: z.string().trim().min(1).max(128).regex(/^[^\p{Cc}]*$/u, { message: 'expected no control characters' }),
  scope: z.string(),
});

export function isTokenScope(value: string): value is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** A token as listed: never its hash, never the raw token. */
export interface TokenInfo {
  id: string;
  label: string;
  scope: TokenScope;
  created_at: string;
  last_used_at: string | null;
}

export interface CreatedTokenPayload extends Omit<TokenInfo, 'last_used_at'> {
  /** The raw token: shown in this answer only. */
  token: string;
  warning: string;
}

export const TOKEN_WARNING = 'Store this token now: svc keeps only a hash of it and cannot show it again.';

/**
 * GET /api/auth/whoami: who the caller is and what it may do, so a client (the dashboard)
 * hides or disables what would be refused. The server still decides every request.
 */
export interface WhoAmIPayload {
  auth_enabled: boolean;
  identity: AuthStatusPayload['identity'];
  /** The access classes (protocol/access.ts) this caller's requests pass. */
  grants: RouteAccess[];
  /** Whether this caller may set host-only keys (docs/auth.md, "Host-only keys"). */
  host_authority: boolean;
}

export interface AuthStatusPayload {
  enabled: boolean;
  hostname: string;
  /** Who the server takes the caller to be; reveals no credential. */
  identity: { kind: 'anonymous' } | { kind: 'token'; id: string; label: string; scope: TokenScope } | { kind: 'proxy'; label: string; scope: 'admin' };
  /** Why a credential the caller sent was not accepted (auth.invalid, auth.rate_limited), or null. */
  credential_error: string | null;
  login: string;
}
