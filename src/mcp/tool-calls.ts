// ToolHost for every server, installed or bundled: which tools a caller is offered, and one
// call that applies each rule on the way: blocked never runs, the token's scope is checked,
// gated waits in the approvals queue, an enabled server that is stopped starts on demand,
// the call times out, and each step is an `mcp.tool.*` event.
import { SvcError } from '../protocol/errors.js';
import type { McpState, McpToolEventData, ToolOutcome, ToolPolicyLists } from '../protocol/mcp.js';
import type { ApprovalQueue } from './approvals.js';
import { joinKey } from './approvals.js';
import type { ListedTool } from './client-session.js';
import { policyOf, qualifiedName, scopeAllows, splitQualified } from './policy.js';
import type { OfferedTool, ToolCallOptions, ToolCaller, ToolHost, ToolResult } from './tool-host.js';

/** One server as the tool calls see it (service.ts builds these for installed and bundled servers). */
export interface ToolServerHandle {
  id: string;
  enabled: boolean;
  state: McpState;
  lastError: string | null;
  policy: ToolPolicyLists;
  tools: ListedTool[];
  /** Start it when it is enabled and not running; throws mcp.unavailable when it cannot be. */
  ensureReady(): Promise<void>;
  run(tool: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number, caller: ToolCaller): Promise<ToolResult>;
}

export interface ToolCallDeps {
  handles(): ToolServerHandle[];
  approvals: ApprovalQueue;
  toolTimeoutMs(): number;
  onToolEvent(outcome: ToolOutcome, data: McpToolEventData): void;
  /** A call of an agent's ended (executed, failed or denied): GET /api/agents/<name>/activity reads these. */
  onAgentCall?(call: { agent: string; name: string; args: Record<string, unknown>; client: string; gated: boolean; outcome: ToolOutcome; error: string | null }): void;
}

/** The SDK's McpError code for a request that timed out (ErrorCode.RequestTimeout): matched by value so this module does not load the SDK. */
const MCP_REQUEST_TIMEOUT = -32001;

export class ToolCalls implements ToolHost {
  constructor(private readonly deps: ToolCallDeps) {}

  offered(caller: ToolCaller): Promise<OfferedTool[]> {
    // Only ready servers: what a stopped one offers is not known until it runs (and a server
    // stopped by hand stays stopped; a call by name still starts an enabled one on demand).
    const offered: OfferedTool[] = [];
    for (const handle of this.deps.handles()) {
      if (!handle.enabled || handle.state !== 'ready') continue;
      for (const tool of handle.tools) {
        const policy = policyOf(tool.name, handle.policy);
        if (policy === 'blocked' || !scopeAllows(caller.scope, tool.read_only)) continue;
        offered.push({ name: qualifiedName(handle.id, tool.name), server: handle.id, tool: tool.name, description: tool.description, input_schema: tool.input_schema, policy, read_only: tool.read_only });
      }
    }
    return Promise.resolve(offered);
  }

  async call(name: string, args: Record<string, unknown>, caller: ToolCaller, options: ToolCallOptions = {}): Promise<ToolResult> {
    const handles = this.deps.handles();
    const split = splitQualified(name, handles.map((h) => h.id));
    const handle = split && handles.find((h) => h.id === split.server);
    if (!split || !handle) throw new SvcError('mcp.tool_not_found', `no tool server offers ${name} (tools are named <server>__<tool>)`, { tool: name });
    const { server, tool } = split;
    const policy = policyOf(tool, handle.policy);
    if (policy === 'blocked') throw new SvcError('mcp.tool_blocked', `${name} is blocked by its server's tool policy`, { tool: name, reason: 'policy' });
    await handle.ensureReady();
    const listed = handle.tools.find((t) => t.name === tool);
    if (!listed) throw new SvcError('mcp.tool_not_found', `${server} offers no tool ${tool}`, { tool: name, server });
    if (!scopeAllows(caller.scope, listed.read_only)) {
      throw new SvcError('mcp.tool_blocked', `the token's scope does not allow ${name} (${listed.read_only ? 'read' : 'write'} access needed)`, { tool: name, reason: 'scope' });
    }
    const gated = policy === 'gated';
    const event = (outcome: ToolOutcome, ms: number | null = null, error: string | null = null) => {
      this.deps.onToolEvent(outcome, { server, tool, client: caller.client, gated, outcome, ms, error });
      if (caller.agent && (outcome === 'executed' || outcome === 'failed' || outcome === 'denied')) {
        this.deps.onAgentCall?.({ agent: caller.agent, name, args, client: caller.client, gated, outcome, error });
      }
    };
    event('invoked');
    const approvalId = gated ? await this.waitForApproval(name, server, args, caller, options, event) : null;

    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.deps.toolTimeoutMs();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const result = await untilAborted(handle.run(tool, args, signal, timeoutMs, caller), signal);
      event(result.isError ? 'failed' : 'executed', Date.now() - started, result.isError ? result.text.slice(0, 500) : null);
      if (approvalId) this.deps.approvals.complete(approvalId, result.isError ? { ok: false, error: result.text } : { ok: true, result: result.raw });
      return result;
    } catch (error) {
      const timedOut = timeout.aborted || (error as { code?: unknown }).code === MCP_REQUEST_TIMEOUT;
      const message = timedOut ? `no answer within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
      event('failed', Date.now() - started, message);
      if (approvalId) this.deps.approvals.complete(approvalId, { ok: false, error: message });
      if (error instanceof SvcError) throw error;
      if (timedOut) throw new SvcError('mcp.tool_timeout', `${name} did not answer within ${timeoutMs} ms`, { tool: name, timeout_ms: timeoutMs });
      if (options.signal?.aborted) throw error;
      throw new SvcError('mcp.tool_failed', `${name} failed: ${message}`, { tool: name, reason: 'error', error: message });
    }
  }

  /** Enqueue (or join) the approval; resolves with its id when approved, throws when denied or expired. */
  private async waitForApproval(
    name: string, server: string, args: Record<string, unknown>, caller: ToolCaller, options: ToolCallOptions,
    event: (outcome: ToolOutcome, ms?: number | null, error?: string | null) => void,
  ): Promise<string> {
    const { entry, decision } = this.deps.approvals.enqueue({ tool: name, server, args, client: caller.client, key: joinKey(name, caller, args) });
    event('enqueued');
    options.onProgress?.({ status: 'waiting_approval', approval_id: entry.id });
    const aborted = options.signal ? new Promise<never>((_, reject) => options.signal!.addEventListener('abort', () => reject(options.signal!.reason as Error), { once: true })) : null;
    const outcome = await (aborted ? Promise.race([decision, aborted]) : decision);
    if (outcome === 'approved') {
      event('approved');
      return entry.id;
    }
    const reason = outcome === 'expired' ? 'approval_timeout' : 'denied';
    event('denied', null, reason);
    const message = outcome === 'expired' ? `${name} waited longer than [mcp].approval_timeout_s for approval and was denied` : `${name} was denied in the approvals queue`;
    throw new SvcError('mcp.tool_failed', message, { tool: name, reason, approval_id: entry.id });
  }
}

/** The work's result, or the signal's reason once it aborts (a bundled tool may not watch its signal). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A CallToolResult as a ToolResult: the text parts joined for a model, the rest named. */
export function toToolResult(raw: { content?: unknown; isError?: unknown; structuredContent?: unknown }): ToolResult {
  const parts = Array.isArray(raw.content) ? (raw.content as Array<{ type?: string; text?: string; resource?: { uri?: string; text?: string } }>) : [];
  const text = parts
    .map((p) => (p.type === 'text' ? (p.text ?? '') : p.type === 'resource' ? (p.resource?.text ?? `[resource ${p.resource?.uri ?? ''}]`) : `[${p.type ?? 'content'}]`))
    .join('\n');
  const fallback = text === '' && raw.structuredContent !== undefined ? JSON.stringify(raw.structuredContent) : text;
  return { text: fallback, isError: raw.isError === true, raw };
}
