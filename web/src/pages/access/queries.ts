// What the Access page reads and sends. The token list is read again on the token events
// (which only admins receive), so another admin's change shows up too.
import { queryOptions, useQueryClient } from '@tanstack/react-query';
import type { AuthStatusPayload, CreatedTokenPayload, TokenInfo } from '../../../../src/protocol/auth.js';
import { getJson, sendJson } from '../../api-error.js';
import { useEvents } from '../../live.js';

export const authStatusQuery = queryOptions({ queryKey: ['auth', 'status'], queryFn: ({ signal }) => getJson<AuthStatusPayload>('/api/auth/status', signal) });
export const tokensQuery = queryOptions({ queryKey: ['auth', 'tokens'], queryFn: ({ signal }) => getJson<{ tokens: TokenInfo[] }>('/api/auth/tokens', signal) });

export const createToken = (label: string, scope: string) => sendJson<CreatedTokenPayload>('POST', '/api/auth/tokens', { label, scope });
export const revokeToken = (id: string) => sendJson<{ revoked: TokenInfo }>('DELETE', `/api/auth/tokens/${encodeURIComponent(id)}`);

export function useTokenEvents(): void {
  const queries = useQueryClient();
  useEvents((event) => {
    if (event.type === 'auth.token_created' || event.type === 'auth.token_revoked') void queries.invalidateQueries({ queryKey: tokensQuery.queryKey });
  });
}
