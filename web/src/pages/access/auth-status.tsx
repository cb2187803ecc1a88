// Auth mode and who the caller is (GET /api/auth/status, GET /api/auth/whoami).
import { useQuery } from '@tanstack/react-query';
import { whoamiQuery } from '../../access.js';
import { ErrorNote } from '../../components/error-note.js';
import { authStatusQuery } from './queries.js';
import { identityWords } from './words.js';

export function AuthStatus() {
  const status = useQuery(authStatusQuery);
  const who = useQuery(whoamiQuery);
  if (status.error) return <ErrorNote error={status.error} />;
  if (!status.data) return <p className="muted">Loading…</p>;
  const { enabled, hostname, identity, credential_error: credentialError } = status.data;
  return (
    <div className="card" data-testid="auth-status">
      <h2>Auth mode</h2>
      <p data-testid="auth-mode">
        {enabled ? (
          <>
            <strong>On</strong>: the gateway is reached through the reverse proxy at <code>{hostname}</code>, which asks for the user and password; API
            clients send a token.
          </>
        ) : (
          <>
            <strong>Off</strong> (default mode): svc trusts the network it listens on, so no credential is needed; host-only keys
            and token management stay with this host or an admin token. <code>svc auth enable</code> turns auth mode on.
          </>
        )}
      </p>
      <dl className="facts">
        <dt>you are</dt>
        <dd data-testid="identity">{identityWords(identity)}</dd>
        {who.data && (
          <>
            <dt>you may</dt>
            <dd>{who.data.grants.join(', ') || 'nothing'}</dd>
            <dt>host-only keys</dt>
            <dd>{who.data.host_authority ? 'you may set them' : 'read-only for you (not on this host, not an admin)'}</dd>
          </>
        )}
      </dl>
      {who.error && <ErrorNote error={who.error} />}
      {credentialError && (
        <p className="warn-note">
          The credential your browser sent was not accepted: <code>{credentialError}</code>.
        </p>
      )}
    </div>
  );
}
