// The tools of the bundled svc-admin server (docs/mcp.md, "svc-admin"): the gateway's own
// management, as MCP tools. Each calls what the matching /api route calls (the slot
// commands, the registry, the pull manager, the activity log, the running settings), so
// each change is the same activity row and event as through the API. They run through ctx.mcp.call, so the
// tool policy, the caller's scope, approvals and the mcp.tool.* events apply to them.
import { parseActivityQuery } from '../../activity/parse.js';
import { MODEL_ID_PATTERN, MODEL_ID_RULE } from '../../config/schema/registry.js';
import { listModels } from '../../models/service.js';
import { RequestError, SvcError, SystemError } from '../../protocol/errors.js';
import type { BundledTool, ToolResult } from '../../mcp/tool-host.js';
import { maskUrlSecretsIn } from '../../protocol/url-secrets.js';
import { summarizeSlots } from '../../slots/summary.js';
import type { ServerContext } from '../context.js';
import { withSelfUrl } from '../self-url.js';

/** The actor of the activity rows these tools write. */
const ACTOR = 'mcp:svc-admin';

type Schema = Record<string, unknown>;
const NO_ARGS: Schema = { type: 'object', properties: {}, additionalProperties: false };
const SLOT_NAME: Schema = { type: 'object', properties: { name: { type: 'string', description: 'the slot name' } }, required: ['name'], additionalProperties: false };

/** A payload as the tool's answer: JSON text for a model, structuredContent for a program. */
export function answer(payload: unknown): ToolResult {
  const text = JSON.stringify(payload, null, 2);
  const structured = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? payload : { value: payload };
  return { text, isError: false, raw: { content: [{ type: 'text', text }], structuredContent: structured } };
}

/** An SvcError as a tool error the model can read (code and message), not a failed call. */
export function refusal(error: SvcError): ToolResult {
  const text = `${error.code}: ${error.message}`;
  return { text, isError: true, raw: { content: [{ type: 'text', text }], isError: true } };
}

function text(args: Record<string, unknown>, key: string, required = true): string | undefined {
  const value = args[key];
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new RequestError('request.invalid', `invalid arguments: ${key}: expected a non-empty string`, { problems: [{ path: key, message: 'expected a non-empty string' }] });
  }
  return value;
}

type Run = (args: Record<string, unknown>) => Promise<unknown>;

function tool(name: string, description: string, input_schema: Record<string, unknown>, read_only: boolean, run: Run, destructive = false): BundledTool {
  return {
    name, description, input_schema, read_only, destructive,
    run: async (args) => {
      try {
        return answer(await run(args));
      } catch (error) {
        if (error instanceof SvcError) return refusal(error);
        throw error;
      }
    },
  };
}

export function svcAdminTools(ctx: ServerContext): BundledTool[] {
  const origin = { actor: ACTOR };
  const slotAction = (action: 'load' | 'unload' | 'restart', description: string, schema: Schema = SLOT_NAME) => tool(`slot_${action}`, description, schema, false, async (args) => {
    const name = text(args, 'name')!;
    if (action === 'load') return ctx.slotCommands.load(name, text(args, 'model', false), origin);
    return action === 'unload' ? ctx.slotCommands.unload(name, origin) : ctx.slotCommands.restart(name, origin);
  }, action === 'unload');

  return [
    tool('status', 'svc version, uptime, auth mode, and each slot with its state and model', NO_ARGS, true, async () => ({
      version: ctx.version,
      uptime_s: ctx.uptimeSeconds(),
      started_at: ctx.startedAt.toISOString(),
      auth_enabled: ctx.config.env.authEnabled,
      slots: summarizeSlots(ctx.supervisor.list()),
      gpu: ctx.arbiter.view(),
    })),
    tool('slots_list', 'every slot with its state, model, port, pid and last error', NO_ARGS, true, async () => ({ slots: ctx.supervisor.list() })),
    slotAction('load', 'start a slot (optionally on another registry model) and wait until it is ready', {
      type: 'object',
      properties: { name: { type: 'string', description: 'the slot name' }, model: { type: 'string', description: 'a registry model id or name (default: the slot\'s own)' } },
      required: ['name'],
      additionalProperties: false,
    }),
    slotAction('unload', "stop a slot's engine"),
    slotAction('restart', "stop a slot's engine and start it again"),
    tool('models_list', 'the model registry: every model with its size, format and the slots that use it', NO_ARGS, true, async () => ({ models: await listModels(ctx.config) })),
    tool('model_pull', 'download a model from Hugging Face (org/repo[:quant], org/repo/file.gguf, a catalogue name) and register it', {
      type: 'object',
      properties: { id: { type: 'string', description: `the registry id to give it (${MODEL_ID_RULE})` }, ref: { type: 'string', description: 'what to pull (default: the id)' } },
      required: ['id'],
      additionalProperties: false,
    }, false, async (args) => {
      const id = text(args, 'id')!;
      if (!MODEL_ID_PATTERN.test(id)) throw new RequestError('request.invalid', `invalid arguments: id: expected ${MODEL_ID_RULE}`, { problems: [{ path: 'id', message: `expected ${MODEL_ID_RULE}` }] });
      return ctx.modelCommands.pull(id, text(args, 'ref', false) ?? id, { force: false }, origin);
    }),
    tool('activity_query', 'the activity log, newest first: filter by action, target, actor, outcome, since, until', {
      type: 'object',
      properties: Object.fromEntries(['action', 'target', 'actor', 'outcome', 'since', 'until', 'limit', 'cursor'].map((key) => [key, { type: 'string' }])),
      additionalProperties: false,
    }, true, async (args) => {
      if (!ctx.activity) throw new SystemError('system.unavailable', 'The activity database could not be opened; see the server log.', { path: ctx.paths.activityDb });
      const raw = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, typeof value === 'number' ? String(value) : value]));
      const parsed = parseActivityQuery(raw);
      if ('problems' in parsed) throw new RequestError('request.invalid', `invalid arguments: ${parsed.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`, { problems: parsed.problems });
      return ctx.activity.query(parsed.query);
    }),
    tool('settings_read', 'svc.toml as running (every key, defaults filled in; URL passwords masked)', NO_ARGS, true, async () => ({ settings: maskUrlSecretsIn(withSelfUrl(ctx.config.svc, ctx.listening)), file: ctx.paths.svcToml })),
  ];
}
