// Tool server URLs from a client without host authority (docs/auth.md, "Tool server URLs"):
// a URL makes svc connect there and read the answer, so one off the allow-list, or one that
// leads back into this host, is a host-only power and goes through the one host-only policy.
import type { FastifyRequest } from 'fastify';
import { urlRefusal } from '../mcp/url-guard.js';
import type { ServerContext } from './context.js';
import { hostAuthority, requireHostAuthority } from './host-authority.js';

/** 403 config.host_only naming each refused field (with an activity row) unless the client has host authority. */
export async function requireToolUrlAuthority(ctx: ServerContext, request: FastifyRequest, action: string, target: string, fields: ReadonlyArray<{ key: string; url: string }>): Promise<void> {
  if (fields.length === 0 || (await hostAuthority(ctx, request))) return;
  const refused: string[] = [];
  const reasons: string[] = [];
  for (const { key, url } of fields) {
    const why = await urlRefusal(url, ctx.config.svc.mcp.allowed_hosts, [ctx.listening]);
    if (!why) continue;
    refused.push(key);
    reasons.push(why);
  }
  await requireHostAuthority(ctx, request, action, target, refused, `a tool server URL makes svc connect there and read the answer, so a client off this host may name only a host in [mcp].allowed_hosts and never this host's own addresses (${reasons.join('; ')})`);
}
