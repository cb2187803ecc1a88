// What GET /api/mcp/servers shows of a server (pure): the record, its supervised state and what
// the server listed, each tool with the policy svc applies to it.
import { quoteWord } from '../lib/shell-words.js';
import type { McpServerRecord, McpServerView, McpToolView, ToolPolicyLists } from '../protocol/mcp.js';
import type { ListedTool } from './client-session.js';
import { policyOf } from './policy.js';
import type { ServerSupervisor } from './supervisor.js';
import type { BundledTool } from './tool-host.js';

export function toolViews(tools: readonly ListedTool[], lists: ToolPolicyLists): McpToolView[] {
  return tools.map((t) => ({ ...t, policy: policyOf(t.name, lists) }));
}

/** How a client would run or reach it: the stdio command line, or the URL. */
export function connectUrl(record: Pick<McpServerRecord, 'transport' | 'command' | 'args' | 'url'>): string {
  if (record.transport !== 'stdio') return record.url;
  return [record.command, ...record.args].map(quoteWord).join(' ');
}

export function installedView(sup: ServerSupervisor): McpServerView {
  const tools = sup.session?.tools ?? [];
  return {
    ...sup.record,
    bundled: false,
    state: sup.state,
    pid: sup.pid,
    restarts: sup.restarts,
    last_error: sup.lastError,
    connect_url: connectUrl(sup.record),
    server_version: sup.state === 'ready' ? (sup.session?.serverVersion ?? null) : null,
    tool_details: sup.state === 'ready' ? toolViews(tools, sup.record.tools) : [],
    resources: sup.session?.resources ?? 0,
    prompts: sup.session?.prompts ?? 0,
  };
}

/** The gateway serves bundled servers itself at /mcp/<name>/mcp (svc-admin → /mcp/admin/mcp). */
export const bundledPath = (id: string) => `/mcp/${id.replace(/^svc-/, '')}/mcp`;

export function bundledRecord(id: string, policy: ToolPolicyLists): McpServerRecord {
  return {
    id, name: id, description: `Served by svc itself at ${bundledPath(id)}`, spec: 'bundled', transport: 'streamable-http',
    command: '', args: [], url: bundledPath(id), env: {}, secrets: {}, tools: policy, enabled: true, installed_at: '', source_url: '',
  };
}

export function listedOf(tool: BundledTool): ListedTool {
  return { name: tool.name, description: tool.description, input_schema: tool.input_schema, read_only: tool.read_only, destructive: tool.destructive };
}

export function bundledView(id: string, tools: readonly BundledTool[], policy: ToolPolicyLists, version: string): McpServerView {
  return {
    ...bundledRecord(id, policy),
    bundled: true,
    state: 'ready',
    pid: null,
    restarts: 0,
    last_error: null,
    connect_url: bundledPath(id),
    server_version: `${id} ${version}`,
    tool_details: toolViews(tools.map(listedOf), policy),
    resources: 0,
    prompts: 0,
  };
}
