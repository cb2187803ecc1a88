// The one host-only policy's gate (docs/auth.md, "Host-only keys"): keys that name a program,
// a host path, how a program loads, an engine's listener or its image. Over HTTP only a
// client on this host or an admin may set them, so a LAN client in default mode cannot turn
// svc into a shell. Every route that takes engine input or a host-only setting asks here.
import type { FastifyRequest } from 'fastify';
import { isHostClient } from '../lib/own-sockets.js';
import { scopeOf } from '../auth/identity.js';
import { ConfigError } from '../protocol/errors.js';
import type { ServerContext } from './context.js';
import { actorOf, identityOf } from './request.js';

/**
 * True for an admin (an admin token, or the proxy's user in auth mode) and, in default mode,
 * for a client on this host: a loopback peer that is not the gateway's own outbound request
 * (a tool server URL or a reload nudge that names the gateway's port is judged as a LAN
 * client, lib/own-sockets.ts). In auth mode loopback proves nothing: the proxy connects from
 * loopback on behalf of everyone.
 */
export async function hostAuthority(ctx: ServerContext, request: FastifyRequest): Promise<boolean> {
  if (ctx.config.env.authEnabled) return scopeOf(identityOf(request)) === 'admin';
  if (isHostClient(request.socket)) return true;
  // Default mode checks no credentials on the way in; an admin token proves itself here.
  const identity = await ctx.auth.guard.identify({ headers: request.headers, peer: request.socket.remoteAddress });
  return 'kind' in identity && scopeOf(identity) === 'admin';
}

/**
 * Refuse a change that sets host-only `keys` unless the request has host authority: 403
 * config.host_only naming each key, and an activity row (`action`, outcome error) with the
 * client's address, before anything is written. No keys: nothing to ask.
 */
export async function requireHostAuthority(ctx: ServerContext, request: FastifyRequest, action: string, target: string, keys: readonly string[], why: string): Promise<void> {
  if (keys.length === 0 || (await hostAuthority(ctx, request))) return;
  const error = new ConfigError('config.host_only', `${why}: ${keys.join(', ')}. Over HTTP only this host or an admin token may set ${keys.length > 1 ? 'them' : 'it'}; on the host, edit the file (svc config edit) or use the svc CLI there`, { keys: [...keys] });
  ctx.record({ action, target, actor: actorOf(request), outcome: 'error', message: error.message, details: { code: error.code, refused: [...keys], client: request.socket.remoteAddress ?? null } });
  throw error;
}

