// svc mcp list|status|install|uninstall|restart|logs|catalog list|catalog refresh: thin over
// /api/mcp (docs/cli.md, "svc mcp"). Tables and JSON as `svc slot` prints them.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { quoteWord } from '../../lib/shell-words.js';
import type { McpServerView } from '../../protocol/mcp.js';
import { DEFAULT_MCP_LOG_LINES } from '../../protocol/mcp-requests.js';
import type { ApiClient } from '../client.js';
import { print, printJson, table } from '../output.js';

type Json = { json?: boolean };

const dash = (value: string | number | null | undefined) => (value === null || value === undefined || value === '' ? '-' : String(value));

function lineCount(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`expected a line count of 1 or more; got "${value}"`);
  return Number(value);
}

/** One word is the spec as typed (quoted or not); several are a command line, each word kept whole. */
function specOf(words: string[]): string {
  return words.length === 1 ? words[0]! : words.map(quoteWord).join(' ');
}

export function registerMcpCommands(program: Command, client: () => ApiClient): void {
  const mcp = program.command('mcp').description('tool servers (MCP): list, inspect, install, uninstall, restart, logs, the catalog');
  const json = () => new Option('--json', 'print JSON');
  mcp.command('list').description('list tool servers with their state, transport, pid and tools').addOption(json()).action((o: Json) => mcpList(client(), o));
  mcp.command('status <id>').description("one tool server: state, pid, last error, its tools and their policies").addOption(json()).action((id: string, o: Json) => mcpStatus(client(), id, o));
  mcp.command('install <spec...>').description('install a tool server: npm:<package>[@version], an http(s) URL, oci://<image>, uvx:<package>, or a command line (after --: svc mcp install --id x -- node server.mjs --flag)')
    .option('--id <id>', 'the server id (default: from the spec)')
    .addOption(json())
    .action((words: string[], o: Json & { id?: string }) => mcpInstall(client(), specOf(words), o));
  mcp.command('uninstall <id>').description('stop a tool server and remove its record and installed files (bundled servers cannot be)')
    .option('-f, --force', 'accepted for scripts written against the spec: uninstall never asks', false)
    .addOption(json())
    .action((id: string, o: Json) => mcpUninstall(client(), id, o));
  mcp.command('restart <id>').description('stop a tool server and start it again').addOption(json()).action((id: string, o: Json) => mcpRestart(client(), id, o));
  mcp.command('logs <id>').description("print a tool server's stderr")
    .addOption(new Option('-n, --lines <n>', 'how many of the last lines').argParser(lineCount).default(DEFAULT_MCP_LOG_LINES))
    .addOption(json())
    .action((id: string, o: Json & { lines: number }) => mcpLogs(client(), id, o));
  const catalog = mcp.command('catalog').description('tool servers to install: the curated list and the MCP Registry');
  catalog.command('list').description('list the catalog').addOption(json()).action((o: Json) => mcpCatalogList(client(), o));
  catalog.command('refresh').description('re-read the MCP Registry ([mcp].registry_url)').addOption(json()).action((o: Json) => mcpCatalogRefresh(client(), o));
}

const toolCount = (s: McpServerView) => {
  const blocked = s.tool_details.filter((t) => t.policy === 'blocked').length;
  const gated = s.tool_details.filter((t) => t.policy === 'gated').length;
  const extra = [gated && `${gated} gated`, blocked && `${blocked} blocked`].filter(Boolean).join(', ');
  return `${s.tool_details.length}${extra ? ` (${extra})` : ''}`;
};

export async function mcpList(client: ApiClient, options: Json): Promise<void> {
  const result = await client.listMcpServers();
  if (options.json) return printJson(result);
  const rows = result.servers.map((s) => [s.id, s.bundled ? 'bundled' : s.transport, s.state, dash(s.pid), String(s.restarts), toolCount(s), s.connect_url]);
  for (const line of table(['ID', 'TRANSPORT', 'STATE', 'PID', 'RESTARTS', 'TOOLS', 'CONNECT'], rows)) print(line);
  if (result.servers.every((s) => s.bundled)) print('install one with `svc mcp install npm:<package>` (`svc mcp catalog list` has some)');
}

/** Label/value lines of a server, then its tools with their policies. */
export function describeServer(s: McpServerView): string[] {
  const rows: Array<[string, string]> = [
    ['server', `${s.id}${s.bundled ? ' (bundled: served by the gateway)' : ''}`],
    ['state', `${s.state}${s.enabled ? '' : ' (disabled)'}`],
    ['transport', s.transport],
    ['connect', s.connect_url],
    ['spec', dash(s.spec)],
    ['pid', dash(s.pid)],
    ['restarts', String(s.restarts)],
    ['version', dash(s.server_version)],
    ['resources', String(s.resources)],
    ['prompts', String(s.prompts)],
    ['default policy', s.tools.default],
  ];
  if (s.last_error) rows.push(['last error', s.last_error.split('\n')[0]!]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`);
  if (s.last_error?.includes('\n')) lines.push('last error (full):', ...s.last_error.split('\n').map((l) => `  ${l}`));
  if (s.tool_details.length > 0) {
    lines.push('');
    const tools = s.tool_details.map((t) => [t.name, t.policy, t.read_only ? 'read' : 'write', t.description.split('\n')[0]!.slice(0, 80)]);
    lines.push(...table(['TOOL', 'POLICY', 'KIND', 'DESCRIPTION'], tools));
  }
  return lines;
}

export async function mcpStatus(client: ApiClient, id: string, options: Json): Promise<void> {
  const server = await client.getMcpServer(id);
  if (options.json) return printJson(server);
  for (const line of describeServer(server)) print(line);
}

export async function mcpInstall(client: ApiClient, spec: string, options: Json & { id?: string }): Promise<void> {
  const server = await client.installMcpServer({ spec, ...(options.id !== undefined && { id: options.id }) });
  if (options.json) return printJson(server);
  print(`installed tool server ${server.id} (mcp-servers/${server.id}.toml): ${server.transport}, ${server.state}, ${server.tool_details.length} tools`);
  if (server.last_error) print(`last error: ${server.last_error.split('\n')[0]}`);
}

export async function mcpUninstall(client: ApiClient, id: string, options: Json): Promise<void> {
  const result = await client.uninstallMcpServer(id);
  if (options.json) return printJson(result);
  print(`uninstalled tool server ${id}`);
}

export async function mcpRestart(client: ApiClient, id: string, options: Json): Promise<void> {
  const server = await client.restartMcpServer(id);
  if (options.json) return printJson(server);
  print(`tool server ${server.id} is ${server.state}${server.pid === null ? '' : ` (pid ${server.pid})`}`);
}

export async function mcpLogs(client: ApiClient, id: string, options: Json & { lines: number }): Promise<void> {
  const result = await client.mcpLogs(id, options.lines);
  if (options.json) return printJson(result);
  for (const line of result.lines) print(line);
}

async function printCatalog(payload: Awaited<ReturnType<ApiClient['mcpCatalog']>>, options: Json): Promise<void> {
  if (options.json) return printJson(payload);
  const rows = payload.items.map((i) => [i.id, i.category, i.source, i.installed ? 'yes' : '-', i.spec]);
  for (const line of table(['ID', 'CATEGORY', 'SOURCE', 'INSTALLED', 'SPEC'], rows)) print(line);
  print(`registry part refreshed: ${payload.refreshed_at ?? 'never (svc mcp catalog refresh)'}`);
}

export async function mcpCatalogList(client: ApiClient, options: Json): Promise<void> {
  await printCatalog(await client.mcpCatalog(), options);
}

export async function mcpCatalogRefresh(client: ApiClient, options: Json): Promise<void> {
  await printCatalog(await client.refreshMcpCatalog(), options);
}
