// Who may call each route. Every route's access class is in ROUTE_ACCESS_TABLE below, the
// one table the auth guard decides from (src/auth/guard.ts); a route missing from it refuses
// every request, and server/access-table.test.ts fails for any registered route it lacks. docs/api.md
// ("Access") prints the same table and scopes, and a test compares the two.
import type { TokenScope } from './vocabulary.js';

export const ROUTE_ACCESS = ['public', 'v1', 'v1-read', 'read', 'write', 'token-admin', 'unlisted'] as const;
/**
 * - public: no credentials, even in auth mode (the spec's allowlist);
 * - v1: the OpenAI-compatible inference routes;
 * - v1-read: GET /v1/models/<id>, a listing read;
 * - read: GET routes of /api;
 * - write: every mutation of /api;
 * - token-admin: token management (/api/auth/tokens), admin only in either mode;
 * - unlisted: a route missing from the table; it refuses every request.
 */
export type RouteAccess = (typeof ROUTE_ACCESS)[number];

/** The spec's public allowlist: no credentials even in auth mode (the Caddyfile passes them through too). */
export const PUBLIC_PATHS: readonly string[] = [
  '/api/health/system', '/api/status', '/api/metrics', '/api/features', '/api/install/state', '/api/install/complete',
  '/api/config/urls', '/api/auth/status', '/api/auth/login', '/v1/models',
  // Not in the spec's list: the gateway's proof for the CLI (protocol/proxy-proof.ts), which must
  // answer before the CLI sends any credential and reveals nothing.
  '/api/auth/proof',
];

/** What each token scope grants (docs/auth.md). */
export const SCOPE_GRANTS: Readonly<Record<TokenScope, readonly RouteAccess[]>> = {
  admin: ['public', 'v1', 'v1-read', 'read', 'write', 'token-admin'],
  all: ['public', 'v1', 'v1-read', 'read'],
  'v1-only': ['public', 'v1', 'v1-read'],
  'read-only': ['public', 'v1-read', 'read'],
};

export function scopeGrants(scope: TokenScope, access: RouteAccess): boolean {
  return SCOPE_GRANTS[scope].includes(access);
}

/** "METHOD /path" as Fastify registers it (":param" and "*" included); method "*" is any. */
export const ROUTE_ACCESS_TABLE: Readonly<Record<string, RouteAccess>> = {
  'GET /api/health/system': 'public',
  'GET /api/status': 'public',
  'GET /api/metrics': 'public',
  'GET /api/features': 'public',
  'GET /api/config/urls': 'public',
  'GET /api/install/state': 'public',
  'POST /api/install/complete': 'public',
  'GET /api/auth/status': 'public',
  '* /api/auth/login': 'public',
  'GET /api/auth/proof': 'public',
  'GET /v1/models': 'public',

  'GET /v1/models/*': 'v1-read',
  'POST /v1/chat/completions': 'v1',
  'POST /v1/completions': 'v1',
  'POST /v1/embeddings': 'v1',
  'POST /v1/rerank': 'v1',
  'POST /v1/rerankings': 'v1',
  'POST /v1/audio/speech': 'v1',
  'POST /v1/audio/transcriptions': 'v1',
  'POST /v1/images/generations': 'v1',
  'POST /v1/responses': 'v1',
  'GET /v1/responses/:id': 'v1',
  'DELETE /v1/responses/:id': 'v1',
  'GET /v1/responses/:id/input_items': 'v1',

  'GET /api/auth/whoami': 'read',
  'GET /api/settings': 'read',
  'GET /api/settings/schema': 'read',
  'GET /api/settings/apply-plan': 'read',
  'GET /api/models': 'read',
  'GET /api/models/:ref': 'read',
  'GET /api/models/pulls': 'read',
  'GET /api/models/search': 'read',
  'GET /api/models/:id/pull/status': 'read',
  'GET /api/models/:id/pull/stream': 'read',
  'GET /api/hardware': 'read',
  'GET /api/doctor': 'read',
  'GET /api/activity': 'read',
  'GET /api/events': 'read',
  'GET /api/events/stream': 'read',
  'GET /api/profiles': 'read',
  'GET /api/profiles/:name': 'read',
  'POST /api/profiles': 'write',
  'PUT /api/profiles/:name': 'write',
  'DELETE /api/profiles/:name': 'write',
  'POST /api/profiles/:name/clone': 'write',
  'GET /api/stacks': 'read',
  'GET /api/stacks/:slug': 'read',
  'GET /api/stacks/:slug/export': 'read',
  'GET /api/stacks/active': 'read',
  'POST /api/stacks/:slug/apply': 'write',
  'POST /api/stacks': 'write',
  'PUT /api/stacks/:slug': 'write',
  'DELETE /api/stacks/:slug': 'write',
  'POST /api/stacks/import': 'write',
  'POST /api/stacks/snapshot': 'write',
  'GET /api/slots': 'read',
  'GET /api/slots/:name': 'read',
  'GET /api/slots/:name/logs': 'read',
  'GET /api/images/cache/:name': 'read',

  'PUT /api/settings': 'write',
  'POST /api/settings/reload': 'write',
  'POST /api/models': 'write',
  'DELETE /api/models/:ref': 'write',
  'POST /api/models/:ref/assign': 'write',
  'POST /api/models/scan': 'write',
  'POST /api/models/:id/pull': 'write',
  'DELETE /api/models/:id/pull': 'write',
  'DELETE /api/models/pulls/:job': 'write',
  'POST /api/hardware/probe': 'write',
  'POST /api/slots': 'write',
  'PUT /api/slots/:name': 'write',
  'DELETE /api/slots/:name': 'write',
  'POST /api/slots/:name/load': 'write',
  'POST /api/slots/:name/unload': 'write',
  'POST /api/slots/:name/restart': 'write',
  'POST /api/slots/:name/swap': 'write',
  'PUT /api/install/slots/:name/model': 'write',
  'POST /api/install/apply': 'write',
  'GET /api/updates/check': 'read',
  'GET /api/updates/channel': 'read',
  'PUT /api/updates/channel': 'write',
  'GET /api/updates/state': 'read',
  'POST /api/updates/apply': 'write',
  'POST /api/updates/rollback': 'write',
  'GET /api/updates/status/:id': 'read',
  // Tool servers (docs/mcp.md): installing one that runs a program on this host is host-only
  // besides (src/server/host-authority.ts). /mcp/admin/mcp is read: each tool then needs its
  // own scope (read tools read, the rest write), which the tool server service checks.
  'GET /api/mcp/servers': 'read',
  'GET /api/mcp/servers/:id': 'read',
  'POST /api/mcp/install': 'write',
  'DELETE /api/mcp/:id': 'write',
  'PATCH /api/mcp/:id/config': 'write',
  'PATCH /api/mcp/:id/tools': 'write',
  'POST /api/mcp/:id/start': 'write',
  'POST /api/mcp/:id/stop': 'write',
  'POST /api/mcp/:id/restart': 'write',
  'POST /api/mcp/:id/test': 'write',
  'GET /api/mcp/:id/logs': 'read',
  'GET /api/mcp/catalog': 'read',
  'POST /api/mcp/catalog/refresh': 'write',
  'GET /api/mcp/stream': 'read',
  'GET /api/agent/approvals': 'read',
  'POST /api/agent/approvals/:id/approve': 'write',
  'POST /api/agent/approvals/:id/deny': 'write',
  'GET /api/agent/approvals/events': 'read',
  'POST /mcp/admin/mcp': 'read',
  'GET /mcp/admin/mcp': 'read',
  'DELETE /mcp/admin/mcp': 'read',
  // Memory (docs/memory.md): search and recall are POSTs that change nothing, so they are reads.
  'POST /api/memory/add': 'write',
  'POST /api/memory/search': 'read',
  'POST /api/memory/recall': 'read',
  'GET /api/memory/list': 'read',
  'POST /api/memory/delete': 'write',
  'GET /api/memory/banks': 'read',
  'PUT /api/memory/banks/:id': 'write',
  'DELETE /api/memory/banks/:id': 'write',
  'GET /api/memory/banks/:id/stats': 'read',
  'GET /api/memory/engine': 'read',
  // The bundled svc-memory MCP server: read, as /mcp/admin/mcp; each tool needs its own scope.
  'POST /mcp/memory/mcp': 'read',
  'GET /mcp/memory/mcp': 'read',
  'DELETE /mcp/memory/mcp': 'read',
  'GET /api/memory/graph/status': 'read',
  'GET /api/memory/graph': 'read',
  'PUT /api/memory/graph': 'write',
  'POST /api/memory/graph/retry': 'write',
  'GET /api/memory/banks/:id/graph/subgraph': 'read',
  // hermes provisioning and personas (docs/agents.md): a provision runs the runtime on this host (host-only too).
  'POST /api/agents/:name/provision': 'write',
  'GET /api/agents/:name/provision': 'read',
  'GET /api/agents/:id/personas': 'read',
  'GET /api/agents/:id/personas/:pid': 'read',
  'POST /api/agents/:id/personas/:pid/activate': 'write',
  'GET /api/agents/:id/personas/:pid/budget': 'read',
  'PUT /api/agents/:id/personas/:pid/budget': 'write',

  // Agents (docs/agents.md): installing, upgrading and uninstalling run npm or a runtime on the host.
  'GET /api/agents': 'read',
  'POST /api/agents/install': 'write',
  'GET /api/agents/jobs/:id': 'read',
  'GET /api/agents/:name': 'read',
  'DELETE /api/agents/:name': 'write',
  'GET /api/agents/:name/activity': 'read',
  'POST /api/agents/:name/upgrade': 'write',
  'GET /api/agents/:name/log': 'read',
  // The hindsight engine: its degraded mode's promote, and the allowlisted per-bank passthrough.
  'POST /api/memory/promote': 'write',
  'GET /api/memory/banks/:id/*': 'read',
  'POST /api/memory/banks/:id/*': 'write',
  'PUT /api/memory/banks/:id/*': 'write',
  'PATCH /api/memory/banks/:id/*': 'write',
  'DELETE /api/memory/banks/:id/*': 'write',
  // Bank administration (docs/memory.md, "Banks"); an export is a read, an import and a re-embedding writes.
  'GET /api/memory/banks/:id': 'read',
  'PATCH /api/memory/banks/:id': 'write',
  'GET /api/memory/banks/:id/memories': 'read',
  'GET /api/memory/banks/:id/memories/:item': 'read',
  'DELETE /api/memory/banks/:id/memories/:item': 'write',
  'GET /api/memory/banks/:id/documents': 'read',
  'GET /api/memory/banks/:id/documents/:item': 'read',
  'DELETE /api/memory/banks/:id/documents/:item': 'write',
  'GET /api/memory/banks/:id/tags': 'read',
  'GET /api/memory/banks/:id/export': 'read',
  'POST /api/memory/banks/:id/import': 'write',
  'POST /api/memory/banks/:id/reembed': 'write',
  'GET /api/memory/banks/:id/reembed': 'read',
  // Peers and replica sets (docs/scaling.md).
  'GET /api/peers': 'read',
  'POST /api/peers/refresh': 'write',
  // svc memory migrate unify (docs/memory.md "Unifying banks"): a write, as the bank admin routes (its dry-run changes nothing, but one body does both).
  'POST /api/memory/migrate/unify': 'write',
  'POST /api/memory/migrate/hindsight': 'write',

  // The dashboard's files and views (GET /* takes every path no other route has): open in
  // default mode like every read, behind the proxy's sign-in (or a read token) in auth mode.
  'GET /*': 'read',

  'GET /api/auth/tokens': 'token-admin',
  'POST /api/auth/tokens': 'token-admin',
  'DELETE /api/auth/tokens/:id': 'token-admin',
};

/** The access class of a registered route; HEAD is its GET, and a route not in the table is unlisted. */
export function routeAccess(method: string, url: string): RouteAccess {
  const verb = method === 'HEAD' ? 'GET' : method;
  return ROUTE_ACCESS_TABLE[`${verb} ${url}`] ?? ROUTE_ACCESS_TABLE[`* ${url}`] ?? 'unlisted';
}
