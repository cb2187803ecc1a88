// Whether a request may change host-only keys (docs/auth.md, "Host-only keys"): keys that
// name a program, a host path, or how a program loads. Over HTTP only a client on this host
// or an admin may set them, so a LAN client in default mode cannot turn svc into a shell.
import type { FastifyRequest } from 'fastify';
import { isLoopbackAddress } from '../auth/addresses.js';
import { scopeOf } from '../auth/identity.js';
import type { ServerContext } from './context.js';
import { identityOf } from './request.js';

/**
 * True for an admin (an admin token, or the proxy's user in auth mode) and, in default mode,
 * for a loopback client. In auth mode loopback proves nothing: the proxy connects from
 * loopback on behalf of everyone.
 */
export async function hostAuthority(ctx: ServerContext, request: FastifyRequest): Promise<boolean> {
  if (ctx.config.env.authEnabled) return scopeOf(identityOf(request)) === 'admin';
  if (isLoopbackAddress(request.socket.remoteAddress)) return true;
  // Default mode checks no credentials on the way in; an admin token proves itself here.
  const identity = await ctx.auth.guard.identify({ headers: request.headers, peer: request.socket.remoteAddress });
  return 'kind' in identity && scopeOf(identity) === 'admin';
}
