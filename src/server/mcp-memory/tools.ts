// The tools of the bundled svc-memory server (docs/mcp.md "svc-memory", docs/memory.md): the
// memory service (ctx.memory) as MCP tools, each acting as the caller's agent (X-Svc-Agent of
// the MCP request, or the token's name; docs/memory.md "Namespaces"), so private items stay
// their agent's. They run through ctx.mcp.call: the tool policy (memory_delete is gated by
// default, its approvals deduplicated on `ids`), the caller's scope and the mcp.tool.* events.
import type { z } from 'zod';
import type { MemoryIdentity } from '../../memory/identity.js';
import { ANONYMOUS_AGENT } from '../../memory/identity.js';
import { reflect } from '../../memory/reflect.js';
import type { BundledTool, ToolCaller } from '../../mcp/tool-host.js';
import { SvcError } from '../../protocol/errors.js';
import { parseRequest } from '../../protocol/validate.js';
import type { ServerContext } from '../context.js';
import { answer, refusal } from '../mcp-admin/tools.js';
import { AddArgs, CurateArgs, DeleteArgs, HistoryArgs, jsonSchemaOf, ListArgs, RecallArgs, ReflectArgs, SearchArgs } from './schemas.js';

export const SVC_MEMORY_ID = 'svc-memory';
/** Gated until someone changes svc-memory's tool policy: a delete cannot be undone. */
export const SVC_MEMORY_GATED = ['memory_delete'];
/** Activity rows of one item that memory_history reads back (the newest this many memory.* rows). */
const HISTORY_SCAN = 500;

const identityOf = (caller: ToolCaller, asked?: boolean): MemoryIdentity => ({ agent: caller.agent ?? ANONYMOUS_AGENT, private: asked ?? caller.private ?? false });
const actorOf = (caller: ToolCaller) => caller.client;

interface Spec<S extends z.ZodType> {
  name: string;
  description: string;
  args: S;
  read_only: boolean;
  destructive?: boolean;
  run(args: z.output<S>, caller: ToolCaller, signal: AbortSignal): Promise<unknown>;
}

function tool<S extends z.ZodType>(spec: Spec<S>): BundledTool {
  return {
    name: spec.name, description: spec.description, input_schema: jsonSchemaOf(spec.args), read_only: spec.read_only, destructive: spec.destructive ?? false,
    run: async (raw, signal, caller) => {
      try {
        return answer(await spec.run(parseRequest(spec.args, raw, 'arguments'), caller, signal));
      } catch (error) {
        if (error instanceof SvcError) return refusal(error);
        throw error;
      }
    },
  };
}

/** An item's activity rows (add, retag, delete), newest first, from the newest memory.* rows. */
function activityOf(ctx: ServerContext, id: string): unknown[] {
  if (!ctx.activity) return [];
  const rows = ctx.activity.query({ action: 'memory.*', limit: HISTORY_SCAN }).items;
  return rows.filter((row) => {
    const details = row.details as { id?: unknown; ids?: unknown };
    return details.id === id || (Array.isArray(details.ids) && details.ids.includes(id));
  });
}

export function svcMemoryTools(ctx: ServerContext): BundledTool[] {
  return [
    tool({
      name: 'memory_add', description: 'remember a text (with tags, a dataset, metadata); private keeps it to this agent', args: AddArgs, read_only: false,
      run: ({ private: asked, ...body }, caller) => ctx.memory.add(identityOf(caller, asked), body, actorOf(caller)),
    }),
    tool({
      name: 'memory_search', description: 'hybrid search (meaning and words) of the memories this agent may read, best first with scores', args: SearchArgs, read_only: true,
      run: (body, caller) => ctx.memory.search(identityOf(caller), body),
    }),
    tool({
      name: 'memory_recall', description: 'the memories relevant to a query, reranked and within a token budget', args: RecallArgs, read_only: true,
      run: (body, caller) => ctx.memory.recall(identityOf(caller), body),
    }),
    tool({
      name: 'memory_list', description: 'the memories this agent may read, a page at a time (oldest first)', args: ListArgs, read_only: true,
      run: (query, caller) => ctx.memory.list(identityOf(caller), query),
    }),
    tool({
      name: 'memory_delete', description: 'delete memories by id (needs approval by default)', args: DeleteArgs, read_only: false, destructive: true,
      run: (body, caller) => ctx.memory.delete(identityOf(caller), body, actorOf(caller)),
    }),
    tool({
      name: 'memory_history', description: 'one memory with its tags and metadata, and its activity rows (added, retagged, deleted)', args: HistoryArgs, read_only: true,
      run: async ({ id }, caller) => {
        const [item] = await ctx.memory.items(identityOf(caller), [id]);
        return { id, item: item ?? null, activity: activityOf(ctx, id) };
      },
    }),
    tool({
      name: 'memory_reflect', description: 'recall, then a short answer from the recalled memories by the default llm', args: ReflectArgs, read_only: true,
      run: async (body, caller, signal) => {
        const recalled = await ctx.memory.recall(identityOf(caller), body);
        return { ...(await reflect(ctx.dispatcher, body.query, recalled.items, signal)), items: recalled.items };
      },
    }),
    tool({
      name: 'memory_curate', description: 'retag memories by id (add and remove tags), or delete them (as memory_delete, with its approval)', args: CurateArgs, read_only: false,
      run: async ({ ids, add_tags, remove_tags, delete: remove }, caller, signal) => {
        if (remove) {
          // Through the tool host, so memory_delete's policy (gated by default) applies here too.
          const result = await ctx.mcp.call(`${SVC_MEMORY_ID}__memory_delete`, { ids }, caller, { signal });
          if (result.isError) throw new SvcError('mcp.tool_failed', result.text, { tool: 'memory_delete', reason: 'error' });
          return JSON.parse(result.text) as unknown;
        }
        return ctx.memory.retag(identityOf(caller), { ids, add: add_tags, remove: remove_tags }, actorOf(caller));
      },
    }),
  ];
}
