// The tools one omni request offers and runs: the tool servers' (through the ToolHost, which
// applies policy, scope, approvals and the timeout) and svc's own modality tools. Each call
// runs to an answer for the model: a tool's failure (an error it answered, a timeout, a
// denial) becomes the tool message's text, so the model can recover.
import type { OfferedTool, ToolCaller, ToolHost, ToolResult } from '../mcp/tool-host.js';
import { SvcError } from '../protocol/errors.js';
import type { SvcToolDelta } from '../protocol/mcp.js';
import type { ModalityDeps, ModalityTool } from './modality-tools.js';
import type { ToolCall } from './round.js';
import { portableSchema } from './portable-schema.js';

export interface ToolOutcome {
  message: { role: 'tool'; tool_call_id: string; content: string };
  name: string;
  ms: number;
  ok: boolean;
}

export class Toolbox {
  private readonly served = new Map<string, OfferedTool>();
  private readonly modal = new Map<string, ModalityTool>();
  private readonly clientNames: ReadonlySet<string>;

  constructor(
    private readonly host: ToolHost | undefined,
    private readonly modalityDeps: ModalityDeps,
    private readonly caller: ToolCaller,
    private readonly timeoutMs: number,
    served: readonly OfferedTool[],
    modal: readonly ModalityTool[],
    /** Names the client offered itself: its tools win over ours of the same name. */
    clientNames: ReadonlySet<string>,
  ) {
    this.clientNames = clientNames;
    for (const tool of served) if (!clientNames.has(tool.name)) this.served.set(tool.name, tool);
    for (const tool of modal) if (!clientNames.has(tool.name) && !this.served.has(tool.name)) this.modal.set(tool.name, tool);
  }

  get size(): number {
    return this.served.size + this.modal.size;
  }

  /** A tool of the client's own: a call to it ends the loop (the client runs it). */
  isClients(name: string): boolean {
    return this.clientNames.has(name);
  }

  /** As OpenAI function tools. */
  definitions(): Array<Record<string, unknown>> {
    const served = [...this.served.values()].map((t) => fn(t.name, t.description, portableSchema(t.input_schema)));
    const modal = [...this.modal.values()].map((t) => fn(t.name, t.description, t.parameters));
    return [...served, ...modal];
  }

  /** Runs one call to an answer, telling `progress` each step (running, waiting_approval, done or failed). */
  async run(call: ToolCall, signal: AbortSignal, progress: (delta: SvcToolDelta) => void): Promise<ToolOutcome> {
    const name = call.function.name;
    const started = performance.now();
    const step = (delta: Omit<SvcToolDelta, 'id' | 'name'>) => progress({ id: call.id, name, ...delta });
    step({ status: 'running' });
    let result: ToolResult;
    try {
      const args = parseArguments(call.function.arguments);
      result = await this.call(name, args, signal, (approvalId) => step({ status: 'waiting_approval', approval_id: approvalId }));
    } catch (error) {
      if (signal.aborted) throw error;
      result = { text: error instanceof Error ? error.message : String(error), isError: true, raw: null };
    }
    const ms = Math.round(performance.now() - started);
    step(result.isError ? { status: 'failed', duration_ms: ms, error: result.text } : { status: 'done', duration_ms: ms });
    const content = result.isError ? `Error: ${result.text}` : result.text;
    return { message: { role: 'tool', tool_call_id: call.id, content }, name, ms, ok: !result.isError };
  }

  private async call(name: string, args: Record<string, unknown>, signal: AbortSignal, waiting: (approvalId: string) => void): Promise<ToolResult> {
    const modal = this.modal.get(name);
    if (modal) return withTimeout(this.timeoutMs, signal, name, (inner) => modal.run(this.modalityDeps, args, inner));
    // A name not offered (a tool the scope does not allow, one the model made up) is still the
    // ToolHost's to refuse: its refusal (mcp.tool_blocked, mcp.tool_not_found) is the result.
    if (!this.host) throw new SvcError('mcp.tool_not_found', `no tool server offers ${name}`, { tool: name });
    return this.host.call(name, args, this.caller, {
      signal, timeoutMs: this.timeoutMs,
      onProgress: (p) => waiting(p.approval_id),
    });
  }
}

const fn = (name: string, description: string, parameters: Record<string, unknown>) => ({ type: 'function', function: { name, description, parameters } });

function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const parsed = JSON.parse(text) as unknown;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the arguments are not a JSON object');
  return parsed as Record<string, unknown>;
}

/** A modality tool's own deadline ([mcp].tool_timeout_s), as the ToolHost applies to server tools. */
async function withTimeout<T>(ms: number, outer: AbortSignal, name: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timer = AbortSignal.timeout(ms);
  const signal = AbortSignal.any([outer, timer]);
  try {
    return await run(signal);
  } catch (error) {
    if (timer.aborted && !outer.aborted) throw new SvcError('mcp.tool_timeout', `${name} did not answer within ${ms / 1000} s`, { tool: name, timeout_s: ms / 1000 });
    throw error;
  }
}
