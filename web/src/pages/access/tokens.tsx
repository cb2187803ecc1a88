// The token list (never a hash or a raw token) with revoke, confirmed first.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { TokenInfo } from '../../../../src/protocol/auth.js';
import { ErrorNote } from '../../components/error-note.js';
import { Confirm } from '../../components/confirm.js';
import { revokeToken, tokensQuery } from './queries.js';
import { SCOPE_WORDS, when } from './words.js';
import { DataTable } from '../../components/data-table.js';

export function Tokens() {
  const queries = useQueryClient();
  const tokens = useQuery(tokensQuery);
  const [revoking, setRevoking] = useState<TokenInfo | null>(null);
  const revoke = async (token: TokenInfo) => {
    await revokeToken(token.id);
    await queries.invalidateQueries({ queryKey: tokensQuery.queryKey });
  };
  return (
    <div className="card" data-testid="tokens">
      <h2>Tokens</h2>
      {tokens.error && <ErrorNote error={tokens.error} />}
      {tokens.data?.tokens.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.data && tokens.data.tokens.length > 0 && (
        <DataTable columns={['Label', 'Scope', 'Id', 'Created', 'Last used', { hidden: 'Actions' }]}>
          {tokens.data.tokens.map((token) => (
            <tr key={token.id} data-testid={`token-${token.label}`}>
              <td>{token.label}</td>
              <td title={SCOPE_WORDS[token.scope]}>{token.scope}</td>
              <td>
                <code>{token.id}</code>
              </td>
              <td>{when(token.created_at)}</td>
              <td>{when(token.last_used_at)}</td>
              <td>
                <button type="button" className="danger" onClick={() => setRevoking(token)} aria-label={`Revoke ${token.label}`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {revoking && (
        <Confirm
          title={`Revoke token "${revoking.label}"?`}
          changes={
            <p>
              Token <code>{revoking.id}</code> ({revoking.scope}: {SCOPE_WORDS[revoking.scope]}) stops working from its next request, which gets 401{' '}
              <code>auth.invalid</code>. Whatever uses it needs a new token. This cannot be undone.
            </p>
          }
          action="Revoke"
          onConfirm={() => revoke(revoking)}
          onClose={() => setRevoking(null)}
        />
      )}
    </div>
  );
}
