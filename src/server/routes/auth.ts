// /api/auth: auth-mode discovery, the login placeholder, the gateway's proof that it holds
// the proxy secret, and token management (docs/auth.md).
// The raw token appears in exactly one place: the answer to its creation. Lists, events,
// activity rows and logs carry its id and label only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity } from '../../auth/identity.js';
import { PROOF_NONCE, PROOF_PATH, type ProofPayload } from '../../protocol/proxy-proof.js';
import type { TokenRow } from '../../config/schema/tokens.js';
import { type AuthStatusPayload, type CreatedTokenPayload, type WhoAmIPayload, CreateTokenRequestSchema, isTokenScope, TOKEN_WARNING, type TokenInfo } from '../../protocol/auth.js';
import { AuthError, SvcError } from '../../protocol/errors.js';
import { parseRequest } from '../../protocol/validate.js';
import { TOKEN_SCOPES } from '../../protocol/vocabulary.js';
import { type RouteAccess, SCOPE_GRANTS } from '../../protocol/access.js';
import { scopeOf } from '../../auth/identity.js';
import type { ServerContext } from '../context.js';
import { hostAuthority } from '../host-authority.js';
import { actorOf, identityOf, objectBody, queryProblem, queryValue } from '../request.js';

function info(row: TokenRow): TokenInfo {
  return { id: row.id, label: row.label, scope: row.scope, created_at: row.created_at, last_used_at: row.last_used_at };
}

function describe(identity: Identity): AuthStatusPayload['identity'] {
  if (identity.kind === 'token') return { kind: 'token', id: identity.id, label: identity.label, scope: identity.scope };
  if (identity.kind === 'proxy') return { kind: 'proxy', label: identity.label, scope: 'admin' };
  return { kind: 'anonymous' };
}

export function registerAuthRoutes(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/api/auth/status', async (request): Promise<AuthStatusPayload> => {
    // A public route: the guard did not look at credentials, so look here, refusing nothing.
    const found = await ctx.auth.guard.identify({ headers: request.headers, peer: request.socket.remoteAddress });
    const { authEnabled, hostname } = ctx.config.env;
    return {
      enabled: authEnabled,
      hostname,
      identity: found instanceof SvcError ? { kind: 'anonymous' } : describe(found),
      credential_error: found instanceof SvcError ? found.code : null,
      login: authEnabled ? `the reverse proxy owns login: open https://${hostname}/ (HTTP basic auth); API clients send Authorization: Bearer svc_<id>.<secret>` : 'auth mode is off: no login is needed',
    };
  });

  app.get('/api/auth/whoami', async (request): Promise<WhoAmIPayload> => {
    const identity = identityOf(request);
    const host = await hostAuthority(ctx, request);
    const scope = scopeOf(identity);
    // Default mode checks no credentials: every class passes but token management, which
    // needs this host or an admin token (auth/guard.ts, hostAdmin).
    const grants: RouteAccess[] = ctx.config.env.authEnabled
      ? [...(scope ? SCOPE_GRANTS[scope] : ['public' as const])]
      : ['public', 'v1', 'v1-read', 'read', 'write', ...(host ? ['token-admin' as const] : [])];
    return { auth_enabled: ctx.config.env.authEnabled, identity: describe(identity), grants, host_authority: host };
  });

  app.all('/api/auth/login', async () => ({
    login: 'proxy',
    message: ctx.config.env.authEnabled
      ? `svc has no login of its own: the reverse proxy at https://${ctx.config.env.hostname}/ asks for the user and password; API clients send a bearer token`
      : 'auth mode is off: no login is needed',
  }));

  // Public: the CLI asks it before it sends the proxy secret (protocol/proxy-proof.ts).
  app.get(PROOF_PATH, async (request, reply): Promise<ProofPayload> => {
    const nonce = queryValue(request, 'nonce') ?? '';
    if (!PROOF_NONCE.test(nonce)) queryProblem('nonce', 'expected 32 to 128 lower-case hex digits');
    reply.header('cache-control', 'no-store');
    return { proof: ctx.auth.proxySecret.prove(nonce) };
  });

  app.get('/api/auth/tokens', async () => ({ tokens: ctx.auth.store.list().map(info) }));

  app.post('/api/auth/tokens', async (request, reply): Promise<CreatedTokenPayload> => {
    const { label, scope } = parseRequest(CreateTokenRequestSchema, objectBody(request));
    if (!isTokenScope(scope)) throw new AuthError('auth.invalid_scope', `unknown scope ${JSON.stringify(scope)}; expected one of ${TOKEN_SCOPES.join(', ')}`, { scope, scopes: [...TOKEN_SCOPES] });
    const { row, token } = await ctx.auth.store.create(label, scope);
    announce(ctx, request, 'auth.token_created', row);
    reply.code(201);
    return { id: row.id, label: row.label, scope: row.scope, created_at: row.created_at, token, warning: TOKEN_WARNING };
  });

  app.delete<{ Params: { id: string } }>('/api/auth/tokens/:id', async (request) => {
    const row = await ctx.auth.store.revoke(request.params.id);
    announce(ctx, request, 'auth.token_revoked', row);
    return { revoked: info(row) };
  });
}

/** One activity row and one event per token change: id, label and scope, never the token. */
function announce(ctx: ServerContext, request: FastifyRequest, type: 'auth.token_created' | 'auth.token_revoked', row: TokenRow): void {
  const verb = type === 'auth.token_created' ? 'created' : 'revoked';
  const data = { id: row.id, label: row.label, scope: row.scope };
  ctx.record({ action: type, target: `token:${row.id}`, actor: actorOf(request), details: data });
  ctx.events.publish({ type, source: 'auth', message: `token ${row.id} (${row.label}, ${row.scope}) ${verb}`, data });
}
