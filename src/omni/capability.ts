// Which targets can call tools, so that `omni: true` runs the loop on them (docs/omni.md):
// a slot file that says so ([slot].tool_calling), else the built-in engine (it parses tool
// calls itself), else a llama-server slot whose GGUF chat template mentions tools
// (llama-server renders `tools` only through the template); an upstream only when its
// [upstreams.<name>] entry says tool_calling = true. A target that cannot call tools gets
// the request once, unchanged.
import type { ResolvedConfig } from '../config/load.js';
import type { DispatchTarget } from '../dispatch/types.js';
import { ggufModelFacts, readGgufHeader } from '../engines/gguf/reader.js';
import { resolveSlotModel } from '../slots/model.js';

/** What the decision needs to know about a target (all of it from config, plus the template). */
export type ToolCallingInput =
  | { kind: 'upstream'; toolCalling: boolean }
  | { kind: 'slot'; provider: string; toolCalling: boolean | null; template: string | null };

/** A template that renders `tools` names them (Jinja: `tools`, `tool_calls`, `tool_call`). */
const TEMPLATE_TOOLS = /\btools?\b|\btool_calls?\b/;

export function canCallTools(input: ToolCallingInput): boolean {
  if (input.kind === 'upstream') return input.toolCalling;
  if (input.toolCalling !== null) return input.toolCalling;
  if (input.provider === 'builtin') return true;
  if (input.provider === 'llama-server') return input.template !== null && TEMPLATE_TOOLS.test(input.template);
  return false;
}

/**
 * The chat template of a model file, read from its GGUF header once per path and kept (a
 * header read is a few milliseconds of disk work; the request path does it once per model).
 */
export class TemplateCache {
  private readonly templates = new Map<string, Promise<string | null>>();

  template(path: string): Promise<string | null> {
    let found = this.templates.get(path);
    if (!found) {
      found = readGgufHeader(path, { maxArrayLength: 0 }).then((header) => ggufModelFacts(header).chatTemplate ?? null, () => null);
      this.templates.set(path, found);
    }
    return found;
  }
}

/** The inputs of canCallTools for a resolved target (reading the template only when it decides). */
export async function toolCallingInput(config: ResolvedConfig, target: DispatchTarget, templates: TemplateCache): Promise<ToolCallingInput> {
  if (target.kind === 'upstream') return { kind: 'upstream', toolCalling: config.upstreams.upstreams[target.upstream]?.tool_calling === true };
  const entry = config.slots.find((e) => e.name === target.slot);
  if (!entry) return { kind: 'slot', provider: 'unknown', toolCalling: false, template: null };
  const { provider, tool_calling: toolCalling, chat_template: override } = entry.config.slot;
  if (toolCalling !== null || provider !== 'llama-server') return { kind: 'slot', provider, toolCalling, template: null };
  if (override !== null) return { kind: 'slot', provider, toolCalling, template: override };
  const model = await resolveSlotModel(entry, config.registry).catch(() => null);
  const template = model?.path ? await templates.template(model.path) : null;
  return { kind: 'slot', provider, toolCalling, template };
}
