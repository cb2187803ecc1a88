// What the layers above (the omni loop, the bundled servers' front end) see of the tool
// servers: the tools a caller may use, and one call that applies every policy on the way
// (blocked never runs, gated waits in the approvals queue, the scope is checked, the call
// times out). McpService (service.ts) implements it.
import type { ToolPolicy } from '../protocol/mcp.js';
import type { TokenScope } from '../protocol/vocabulary.js';

/** Who is calling: a token's scope in auth mode (null in default mode: everything allowed). */
export interface ToolCaller {
  scope: TokenScope | null;
  /** For the queue and the events: `omni:<request id>`, `mcp:<label>`, `api`. */
  client: string;
  /**
   * Who it is, for joining approvals (approvals.ts joinKey): `token:<id>`, `proxy:<user>` or
   * `address:<ip>`. Absent for a caller its client already names alone (`omni:<request id>`).
   */
  identity?: string;
  /** The agent calling (X-Svc-Agent, checked, or its token): each of its calls is an activity row of its own (docs/agents.md), and svc-memory's tools read and write as it. */
  agent?: string;
  /** Whether it asked for privacy (X-Svc-Private). */
  private?: boolean;
}

/** A tool offered to a model: `<server>__<tool>` with the server's JSON schema for its input. */
export interface OfferedTool {
  /** `<server>__<tool>`: the name the model sees and calls. */
  name: string;
  server: string;
  tool: string;
  description: string;
  input_schema: Record<string, unknown>;
  policy: Exclude<ToolPolicy, 'blocked'>;
  read_only: boolean;
}

/** What a step of a call reports while it runs (the omni stream turns these into svc_tool chunks). */
export type ToolProgress = { status: 'waiting_approval'; approval_id: string };

export interface ToolCallOptions {
  signal?: AbortSignal;
  /** Overrides [mcp].tool_timeout_s for this call (the approval wait is not counted). */
  timeoutMs?: number;
  onProgress?(progress: ToolProgress): void;
}

/** A tool's answer: MCP content, text joined for a model; isError when the tool said it failed. */
export interface ToolResult {
  text: string;
  isError: boolean;
  /** The MCP CallToolResult as the server sent it (content, structuredContent). */
  raw: unknown;
}

export interface ToolHost {
  /** The allowed and gated tools of every enabled, ready server the caller's scope allows. */
  offered(caller: ToolCaller): Promise<OfferedTool[]>;
  /**
   * Calls `<server>__<tool>`. Throws SvcError: mcp.tool_not_found, mcp.tool_blocked,
   * mcp.unavailable, mcp.tool_timeout, mcp.tool_failed (denied, expired); a tool that answers
   * isError is a ToolResult, not a throw.
   */
  call(name: string, args: Record<string, unknown>, caller: ToolCaller, options?: ToolCallOptions): Promise<ToolResult>;
}

/**
 * A tool of a bundled server (svc-admin, svc-memory): served by the gateway itself, so it runs
 * in process; McpService applies the same policy, scope check, approvals and events to it as
 * to a tool of an installed server. The server's front end registers them at start.
 */
export interface BundledTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  input_schema: Record<string, unknown>;
  /** Read tools need the read scope in auth mode; the rest write. */
  read_only: boolean;
  destructive: boolean;
  /** `caller` is who called (its agent: whose memories svc-memory's tools touch). */
  run(args: Record<string, unknown>, signal: AbortSignal, caller: ToolCaller): Promise<ToolResult>;
}
