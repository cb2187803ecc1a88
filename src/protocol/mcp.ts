// Tool servers (MCP), approvals and the omni loop on the wire (docs/mcp.md): what /api/mcp/*,
// /api/agent/approvals and the `svc_tool` stream chunks carry, shared by the server, the CLI
// and the dashboard. The servers' own protocol bytes are the MCP SDK's, never typed here.

export const MCP_TRANSPORTS = ['stdio', 'streamable-http', 'sse'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

export const TOOL_POLICIES = ['allow', 'gated', 'blocked'] as const;
/** allow: runs; gated: waits in the approvals queue; blocked: never offered, never called. */
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

/** The servers the gateway serves itself over streamable HTTP (/mcp/admin/mcp, /mcp/memory/mcp). */
export const BUNDLED_MCP_IDS = ['svc-admin', 'svc-memory'] as const;

/** A record's `[tools]` table: three disjoint lists of tool names, and what an unlisted tool gets. */
export interface ToolPolicyLists {
  allow: string[];
  gated: string[];
  blocked: string[];
  default: ToolPolicy;
}

/** `<config>/mcp-servers/<id>.toml`, as stored. */
export interface McpServerRecord {
  id: string;
  name: string;
  description: string;
  /** What it was installed from: npm:<pkg>[@v], a command line, a URL, oci://, uvx:. */
  spec: string;
  transport: McpTransport;
  /** stdio: the program and its arguments (an npm install's bin, resolved at install). */
  command: string;
  args: string[];
  /** streamable-http and sse: the endpoint. */
  url: string;
  /** Plain environment variables for a stdio server. */
  env: Record<string, string>;
  /** ENV_NAME = key in svc's api.env: the value is read at start, never stored in the record. */
  secrets: Record<string, string>;
  tools: ToolPolicyLists;
  enabled: boolean;
  installed_at: string;
  source_url: string;
}

/** Supervised state; a remote server is `ready` while it answers, `error` when it does not. */
export const MCP_STATES = ['disabled', 'stopped', 'starting', 'ready', 'stopping', 'error'] as const;
export type McpState = (typeof MCP_STATES)[number];

/** One tool as the server lists it (tools/list), with the policy svc applies to it. */
export interface McpToolView {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  policy: ToolPolicy;
  read_only: boolean;
  destructive: boolean;
}

/** GET /api/mcp/servers (items) and GET /api/mcp/servers/<id>. */
export interface McpServerView extends McpServerRecord {
  bundled: boolean;
  state: McpState;
  pid: number | null;
  restarts: number;
  last_error: string | null;
  /** Where a client connects: the stdio command line, or the URL. */
  connect_url: string;
  server_version: string | null;
  tool_details: McpToolView[];
  resources: number;
  prompts: number;
}

export interface McpServerListPayload {
  servers: McpServerView[];
  count: number;
}

/** POST /api/mcp/install: exactly one of spec, url, manifest. */
export interface McpInstallRequest {
  spec?: string;
  url?: string;
  /** A record's fields, as in the TOML (id, name, transport, command, args, url, env, secrets, tools). */
  manifest?: Partial<McpServerRecord>;
  id?: string;
  enabled?: boolean;
}

/** PATCH /api/mcp/<id>/config: env replaces the whole table; secrets too. */
export interface McpConfigPatch {
  env?: Record<string, string>;
  secrets?: Record<string, string>;
  enabled?: boolean;
  args?: string[];
  url?: string;
}

/** POST /api/mcp/<id>/test. */
export interface McpTestPayload {
  server_id: string;
  ok: boolean;
  transport: McpTransport;
  server_version: string | null;
  tools: McpToolView[];
  resources: number;
  prompts: number;
  ms: number;
  error: string | null;
}

export interface McpLogsPayload {
  server_id: string;
  lines: string[];
}

export interface McpCatalogItem {
  id: string;
  name: string;
  description: string;
  category: string;
  spec: string;
  homepage: string;
  source: 'curated' | 'registry';
  installed: boolean;
}

export interface McpCatalogPayload {
  items: McpCatalogItem[];
  categories: string[];
  /** When the registry part was last refreshed (null: never). */
  refreshed_at: string | null;
}

/** A tool invocation as GET /api/mcp/stream and the `mcp.tool.*` events carry it. */
export const TOOL_OUTCOMES = ['invoked', 'enqueued', 'approved', 'denied', 'executed', 'failed'] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

export interface McpToolEventData {
  server: string;
  tool: string;
  /** Who called: `omni:<request id>`, `mcp:<token label or address>`, `api`. */
  client: string;
  gated: boolean;
  outcome: ToolOutcome;
  ms: number | null;
  error: string | null;
}

export interface McpStateEventData {
  server: string;
  from: McpState;
  to: McpState;
  reason: string;
  pid: number | null;
}

export const APPROVAL_STATES = ['pending', 'approved', 'denied', 'executed', 'failed', 'expired'] as const;
export type ApprovalState = (typeof APPROVAL_STATES)[number];

/** One entry of the approvals queue (docs/mcp.md, "Approvals"), GET /api/agent/approvals. */
export interface ApprovalEntry {
  id: string;
  /** `<server>__<tool>`. */
  tool: string;
  server: string;
  args: Record<string, unknown>;
  client_id: string;
  enqueued_at: string;
  state: ApprovalState;
  /** The very same call (same tool, same arguments, same caller: approvals.ts joinKey) while pending joins this entry. */
  hit_count: number;
  decided_at: string | null;
  decided_by: string | null;
  expires_at: string;
  result: unknown;
  error: string | null;
}

export interface ApprovalListPayload {
  approvals: ApprovalEntry[];
}

/** GET /api/agent/approvals/events: `data:` of each SSE message. */
export interface ApprovalEventData {
  kind: 'snapshot' | 'enqueued' | 'approved' | 'denied' | 'executed' | 'failed' | 'expired';
  entry?: ApprovalEntry;
  /** kind snapshot: every pending entry. */
  entries?: ApprovalEntry[];
}

/**
 * omni: true with stream: true. One chunk per tool execution step carries this object as
 * `choices[0].delta.svc_tool`; clients that ignore unknown fields parse it as an empty delta.
 */
export interface SvcToolDelta {
  /** The tool call's id (the model's tool_call id). */
  id: string;
  name: string;
  status: 'running' | 'done' | 'failed' | 'waiting_approval';
  duration_ms?: number;
  error?: string;
  /** waiting_approval: the approvals queue entry to approve or deny. */
  approval_id?: string;
}

/** omni: true without stream: added to the final completion. */
export interface SvcOmniSummary {
  rounds: number;
  tool_calls: Array<{ name: string; ms: number; ok: boolean }>;
}
