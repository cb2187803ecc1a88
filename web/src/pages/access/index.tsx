// Access: auth mode and who you are; the tokens (list, create with the raw value shown
// once, revoke) for callers the server lets manage them (token-admin: this host or an
// admin token). For anyone else the token controls are not shown and the page says why.
import { useQueryClient } from '@tanstack/react-query';
import { useAccess } from '../../access.js';
import { useTitle } from '../../router.js';
import { AuthStatus } from './auth-status.js';
import { CreateToken } from './create-token.js';
import { tokensQuery, useTokenEvents } from './queries.js';
import { Tokens } from './tokens.js';
import './access.css';

function TokenAdmin() {
  useTokenEvents();
  const queries = useQueryClient();
  return (
    <div className="columns access-tokens">
      <Tokens />
      <CreateToken onCreated={() => void queries.invalidateQueries({ queryKey: tokensQuery.queryKey })} />
    </div>
  );
}

export default function AccessPage() {
  useTitle('Access');
  const access = useAccess();
  return (
    <section className="page access-page">
      <h1>Access</h1>
      <AuthStatus />
      {!access.settled ? null : access.can('token-admin') ? (
        <TokenAdmin />
      ) : (
        <p className="warn-note" data-testid="tokens-refused">
          Tokens are not shown: {access.why('token-admin')}. Create and revoke them on the host with <code>svc token</code>.
        </p>
      )}
    </section>
  );
}
