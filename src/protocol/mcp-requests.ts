// Request bodies of /api/mcp/* (docs/api.md, "Tool servers (MCP)"), as zod schemas the
// server validates with (parseRequest) and the CLI builds from, plus which of them run a
// program on the host (host-only, docs/auth.md). A record's own rules (the id grammar, a
// transport's required fields, disjoint policy lists, secrets that exist) are the tool
// server service's: they need the record or api.env, and name their paths themselves.
import { z } from 'zod';
import { TOOL_POLICIES } from './mcp.js';

const envName = () => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'expected an environment variable name matching [A-Za-z_][A-Za-z0-9_]*' });
const envValue = () => z.string().regex(/^[^\r\n]*$/, { message: 'expected a value without newlines' });
const toolNames = () => z.array(z.string().min(1).max(128));

/** POST /api/mcp/install: exactly one of spec, url, manifest. */
export const McpInstallRequestSchema = z.strictObject({
  /** npm:<package>[@version], a command line, an http(s) URL, oci://<image>, uvx:<package>. */
  spec: z.string().min(1).max(4096).optional(),
  /** A streamable-HTTP (or SSE) endpoint. */
  url: z.string().min(1).max(4096).optional(),
  /** A record's fields as in its TOML; the service validates them with the record schema. */
  manifest: z.record(z.string(), z.unknown()).optional(),
  /** Default: derived from the spec. */
  id: z.string().min(1).max(256).optional(),
  enabled: z.boolean().optional(),
}).superRefine((body, issues) => {
  const given = (['spec', 'url', 'manifest'] as const).filter((key) => body[key] !== undefined);
  if (given.length !== 1) {
    issues.addIssue({ code: 'custom', path: given.length === 0 ? ['spec'] : [given[1]!], message: given.length === 0 ? 'give one of spec, url or manifest' : `give only one of spec, url or manifest (got ${given.join(', ')})` });
  }
});
export type McpInstallBody = z.output<typeof McpInstallRequestSchema>;

/** PATCH /api/mcp/<id>/config: env and secrets replace their whole tables. */
export const McpConfigPatchSchema = z.strictObject({
  env: z.record(envName(), envValue()).optional(),
  secrets: z.record(envName(), z.string().min(1).max(128)).optional(),
  enabled: z.boolean().optional(),
  args: z.array(z.string().max(4096)).optional(),
  url: z.string().min(1).max(4096).optional(),
}).refine((patch) => Object.keys(patch).length > 0, { message: 'nothing to change: give at least one of env, secrets, enabled, args, url' });
export type McpConfigPatchBody = z.output<typeof McpConfigPatchSchema>;

/** PATCH /api/mcp/<id>/tools: the lists given replace theirs; the three must stay disjoint. */
export const McpToolsPatchSchema = z.strictObject({
  allow: toolNames().optional(),
  gated: toolNames().optional(),
  blocked: toolNames().optional(),
  default: z.enum(TOOL_POLICIES).optional(),
}).refine((patch) => Object.keys(patch).length > 0, { message: 'nothing to change: give at least one of allow, gated, blocked, default' });

/** GET /api/mcp/<id>/logs?lines=: how many of the last stderr lines (the ring keeps about 200). */
export const DEFAULT_MCP_LOG_LINES = 100;

const isUrl = (value: string) => /^https?:\/\//i.test(value.trim());

/**
 * The fields of an install that make svc run a program on this host (host-only, docs/auth.md):
 * any spec but a URL (npm:, a command line, oci://, uvx:), and a manifest of a stdio server.
 * A URL server only makes svc connect out: `write` is enough.
 */
export function hostOnlyInstallKeys(body: McpInstallBody): string[] {
  if (body.spec !== undefined) return isUrl(body.spec) ? [] : ['spec'];
  if (body.manifest !== undefined) {
    const manifest = body.manifest;
    const remote = typeof manifest.transport === 'string' && manifest.transport !== 'stdio' && manifest.command === undefined;
    if (remote) return [];
    const keys = ['command', 'args', 'env', 'secrets'].filter((key) => manifest[key] !== undefined).map((key) => `manifest.${key}`);
    return keys.length > 0 ? keys : ['manifest.transport'];
  }
  return [];
}

/** The fields of a config patch that change what a stdio server's program runs with. */
export function hostOnlyConfigKeys(transport: string, patch: McpConfigPatchBody): string[] {
  if (transport !== 'stdio') return [];
  return (['env', 'args', 'secrets'] as const).filter((key) => patch[key] !== undefined);
}

/**
 * The URLs an install or a config patch would make svc connect to, each with the field that
 * names it: a client without host authority may set them only to a host in
 * [mcp].allowed_hosts (docs/auth.md, "Tool server URLs").
 */
export function toolUrlFields(body: McpInstallBody | McpConfigPatchBody): Array<{ key: string; url: string }> {
  const fields: Array<{ key: string; url: string }> = [];
  if (body.url !== undefined) fields.push({ key: 'url', url: body.url });
  if ('spec' in body && body.spec !== undefined && isUrl(body.spec)) fields.push({ key: 'spec', url: body.spec.trim() });
  if ('manifest' in body && typeof body.manifest?.url === 'string') fields.push({ key: 'manifest.url', url: body.manifest.url });
  return fields;
}
