// The servers as the tool calls see them (tool-calls.ts): a bundled server runs its tools in
// process; an installed one calls through its supervisor's SDK client, started on demand.
import { SvcError } from '../protocol/errors.js';
import type { McpLifecycle } from './service-lifecycle.js';
import type { McpInternals } from './service-types.js';
import { toToolResult, type ToolServerHandle } from './tool-calls.js';
import { listedOf } from './views.js';

export function toolServerHandles(x: McpInternals, lifecycle: McpLifecycle): ToolServerHandle[] {
  const handles: ToolServerHandle[] = [];
  for (const [id, b] of x.bundled) {
    handles.push({
      // A bundled server whose feature is off (svc-memory with memory off) is offered to no one.
      id, enabled: b.enabled?.() ?? true, state: 'ready', lastError: null, policy: b.policy, tools: b.tools.map(listedOf),
      ensureReady: () => Promise.resolve(),
      run: (tool, args, signal, _timeoutMs, caller) => {
        const found = b.tools.find((t) => t.name === tool);
        if (!found) throw new SvcError('mcp.tool_not_found', `${id} offers no tool ${tool}`, { tool, server: id });
        return found.run(args, signal, caller);
      },
    });
  }
  for (const sup of x.servers.values()) {
    handles.push({
      // Getters: a call reads them again after ensureReady() started the server.
      id: sup.record.id,
      get enabled() { return sup.record.enabled; },
      get state() { return sup.state; },
      get lastError() { return sup.lastError; },
      get policy() { return sup.record.tools; },
      get tools() { return sup.session?.tools ?? []; },
      ensureReady: async () => {
        await lifecycle.ensureReady(sup);
      },
      run: async (tool, args, signal, timeoutMs) => {
        const session = sup.session;
        if (!session || sup.state !== 'ready') throw new SvcError('mcp.unavailable', `tool server ${sup.record.id} is ${sup.state}`, { id: sup.record.id, state: sup.state, last_error: sup.lastError });
        const raw = await session.callTool(tool, args, signal, timeoutMs);
        return toToolResult(raw as { content?: unknown; isError?: unknown });
      },
    });
  }
  return handles;
}
