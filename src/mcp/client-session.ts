// One connection to one tool server through the official SDK: the transport its record names
// (a child process over stdio, or streamable HTTP / SSE), the handshake, and what the server
// lists (tools, resources, prompts), read again when it says its tool list changed. Nothing of
// the protocol is written here; the supervisor (supervisor.ts) owns the lifecycle. A remote
// server is fetched through remote-fetch.ts (its connections checked, no redirect followed
// off its origin) and its failures are told in svc's words (remote-failure.ts), never its body.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError, ToolListChangedNotificationSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { VERSION } from '../lib/version.js';
import type { McpServerRecord } from '../protocol/mcp.js';
import type { LogRing } from '../lib/supervision/log-ring.js';
import { remoteFetch, type RemoteFetch } from './remote-fetch.js';
import { remoteFailure } from './remote-failure.js';
import type { TargetGuard } from './url-guard.js';

export interface ListedTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  read_only: boolean;
  destructive: boolean;
}

export interface SessionEvents {
  /** The connection ended without close() (the process exited, the stream broke). */
  onClosed(): void;
  /** The tool list was read again after notifications/tools/list_changed. */
  onToolsChanged(): void;
}

export class ClientSession {
  readonly client: Client;
  private readonly transport: Transport;
  /** A remote server's fetch (null for stdio). */
  private readonly remote: RemoteFetch | null;
  private closing = false;
  tools: ListedTool[] = [];
  resources = 0;
  prompts = 0;

  /** `guard`: the check of every connection to a remote server's URL (url-guard.ts), null for none. */
  constructor(record: McpServerRecord, env: Record<string, string>, stderr: LogRing, private readonly events: SessionEvents, guard: TargetGuard | null = null) {
    this.client = new Client({ name: 'svc', version: VERSION }, { capabilities: {} });
    this.remote = record.transport === 'stdio' ? null : remoteFetch(guard);
    this.transport = makeTransport(record, env, stderr, this.remote);
    this.client.onclose = () => {
      if (!this.closing) this.events.onClosed();
    };
    // Transport errors (a bad line on stdout, a broken stream) are not fatal by themselves;
    // an exit or a disconnect comes through onclose.
    this.client.onerror = () => undefined;
  }

  /** The child's pid (stdio), null for remote servers. */
  get pid(): number | null {
    return this.transport instanceof StdioClientTransport ? this.transport.pid : null;
  }

  get serverVersion(): string | null {
    const info = this.client.getServerVersion();
    return info ? `${info.name} ${info.version}` : null;
  }

  /** Spawn or connect, shake hands, read the lists. Rejects when any of it fails. */
  async open(timeoutMs: number): Promise<void> {
    await this.told(() => this.handshake(timeoutMs));
  }

  private async handshake(timeoutMs: number): Promise<void> {
    await this.client.connect(this.transport, { timeout: timeoutMs });
    const caps = this.client.getServerCapabilities() ?? {};
    if (caps.tools) {
      this.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        await this.readTools(timeoutMs).catch(() => undefined);
        this.events.onToolsChanged();
      });
      await this.readTools(timeoutMs);
    }
    if (caps.resources) this.resources = await this.countPages((cursor) => this.client.listResources({ cursor }, { timeout: timeoutMs }).then((r) => ({ n: r.resources.length, next: r.nextCursor })));
    if (caps.prompts) this.prompts = await this.countPages((cursor) => this.client.listPrompts({ cursor }, { timeout: timeoutMs }).then((r) => ({ n: r.prompts.length, next: r.nextCursor })));
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.told(() => this.client.ping({ timeout: timeoutMs }));
  }

  /**
   * One tool call. A JSON-RPC error (the server's own, or the SDK's timeout) is the answer to
   * the call, as a tool's result is; a failure to reach a remote server is told in svc's words.
   */
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal | undefined, timeoutMs: number): Promise<unknown> {
    const call = () => this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs });
    return this.remote ? call().catch((error: unknown) => {
      throw error instanceof McpError ? error : new Error(remoteFailure(error));
    }) : call();
  }

  /** Close the transport: stdin closed, then SIGTERM, then SIGKILL (the SDK's own sequence). */
  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => undefined);
    await this.remote?.close().catch(() => undefined);
  }

  /** A remote server's failures as svc's own short reason (remote-failure.ts); a stdio server's as they are. */
  private async told<T>(run: () => Promise<T>): Promise<T> {
    if (!this.remote) return run();
    try {
      return await run();
    } catch (error) {
      // No cause: the SDK's error quotes the answer's body, which must not travel on.
      // eslint-disable-next-line preserve-caught-error
      throw new Error(remoteFailure(error));
    }
  }

  private async readTools(timeoutMs: number): Promise<void> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const listed = await this.client.listTools({ cursor }, { timeout: timeoutMs });
      tools.push(...listed.tools.map(toListedTool));
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    this.tools = tools;
  }

  private async countPages(read: (cursor: string | undefined) => Promise<{ n: number; next?: string }>): Promise<number> {
    let total = 0;
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const { n, next } = await read(cursor).catch(() => ({ n: 0, next: undefined }));
      total += n;
      cursor = next;
      if (!cursor) break;
    }
    return total;
  }
}

export function toListedTool(tool: Tool): ListedTool {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    input_schema: tool.inputSchema as Record<string, unknown>,
    read_only: tool.annotations?.readOnlyHint === true,
    destructive: tool.annotations?.destructiveHint === true,
  };
}

function makeTransport(record: McpServerRecord, env: Record<string, string>, stderr: LogRing, remote: RemoteFetch | null): Transport {
  if (record.transport === 'streamable-http') return new StreamableHTTPClientTransport(new URL(record.url), { fetch: remote!.fetch });
  if (record.transport === 'sse') return new SSEClientTransport(new URL(record.url), { fetch: remote!.fetch });
  const transport = new StdioClientTransport({ command: record.command, args: record.args, env, stderr: 'pipe' });
  transport.stderr?.on('data', (chunk: Buffer) => stderr.write(chunk));
  return transport;
}
