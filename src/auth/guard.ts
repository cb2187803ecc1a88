// The auth guard: from a route's access class and a request's headers and peer, who the
// caller is and whether it may proceed. Both the /v1 front door and Fastify's onRequest hook
// ask it (src/server/admission.ts), so no path skips it.
// docs/auth.md has the rules in prose.
import type { IncomingHttpHeaders } from 'node:http';
import { type RouteAccess, scopeGrants } from '../protocol/access.js';
import { AuthError, type SvcError } from '../protocol/errors.js';
import { isLoopbackAddress } from '../lib/addresses.js';
import { type ConnectionEnds, isHostClient } from '../lib/own-sockets.js';
import { ANONYMOUS, type Identity, scopeOf } from './identity.js';
import { type ProxySecret, proxyIdentity } from './proxy-identity.js';
import { bearerOf } from './token-format.js';
import type { TokenVerifier, Verified } from './token-verifier.js';

export interface GuardRequest {
  readonly access: RouteAccess;
  readonly headers: IncomingHttpHeaders;
  /** The TCP peer's address (socket.remoteAddress). */
  readonly peer: string | undefined;
  /**
   * The connection itself (the request's socket), so that the gateway's own requests to
   * itself are not taken for the host's (lib/own-sockets.ts). Absent: the peer alone decides.
   */
  readonly connection?: ConnectionEnds;
}

export type Decision = Identity | SvcError;

export interface GuardOptions {
  readonly verifier: TokenVerifier;
  readonly proxySecret: ProxySecret;
  /** Auth mode on (SVC_AUTH_ENABLED), read per request: a reload can switch it. */
  readonly authEnabled: () => boolean;
}

export class AuthGuard {
  constructor(private readonly options: GuardOptions) {}

  /** The caller's identity when it may proceed, else the refusal; synchronous unless argon2 must run. */
  check(request: GuardRequest): Decision | Promise<Decision> {
    const { access } = request;
    if (access === 'unlisted') return new AuthError('auth.forbidden', 'this route has no access class, so it is refused; it is a bug in svc', { access });
    if (!this.options.authEnabled()) return access === 'token-admin' ? this.hostAdmin(request) : ANONYMOUS;
    if (access === 'public') return ANONYMOUS;
    const identity = this.identify(request, true);
    return identity instanceof Promise ? identity.then((found) => permit(found, access)) : permit(identity, access);
  }

  /**
   * Who the caller is, without deciding access: a bearer token first (spec rule 3), then the
   * proxy's forwarded identity, else anonymous (or auth.required when `required`).
   */
  identify(request: Omit<GuardRequest, 'access'>, required = false): Decision | Promise<Decision> {
    const bearer = bearerOf(header(request.headers.authorization));
    // A browser behind the proxy sends its Basic credentials on: only a Bearer claims a token.
    if (bearer) return this.options.verifier.verify(bearer, this.clientOf(request));
    const proxied = this.options.authEnabled() ? proxyIdentity(request.headers, request.peer, this.options.proxySecret) : undefined;
    if (proxied) return proxied;
    if (!required) return ANONYMOUS;
    return new AuthError('auth.required', 'this route needs credentials: send Authorization: Bearer svc_<id>.<secret>', {});
  }

  /**
   * Token management in default mode: a client on this host or an admin token. Anyone else on
   * the LAN could otherwise mint an admin token and use it to set host-only keys.
   */
  private hostAdmin(request: GuardRequest): Decision | Promise<Decision> {
    if (request.connection ? isHostClient(request.connection) : isLoopbackAddress(request.peer)) return ANONYMOUS;
    const identity = this.identify(request, true);
    return identity instanceof Promise ? identity.then((found) => permit(found, 'token-admin')) : permit(identity, 'token-admin');
  }

  /**
   * The client's address, which failures (and open event streams) are counted against. Behind
   * the proxy every peer is loopback, so there the proxy's X-Forwarded-For (its last hop,
   * which the proxy itself wrote) names the client.
   */
  clientOf(request: Omit<GuardRequest, 'access'>): string {
    const forwarded = header(request.headers['x-forwarded-for']);
    if (forwarded && isLoopbackAddress(request.peer) && this.options.authEnabled()) return forwarded.split(',').at(-1)!.trim();
    return request.peer ?? 'unknown';
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function permit(identity: Verified | Decision, access: RouteAccess): Decision {
  if (!('kind' in identity)) return identity;
  const scope = scopeOf(identity);
  if (scope && scopeGrants(scope, access)) return identity;
  if (!scope) return new AuthError('auth.required', 'this route needs credentials: send Authorization: Bearer svc_<id>.<secret>', {});
  return new AuthError('auth.forbidden', `scope ${scope} does not grant ${access} routes`, { access, scope });
}
