// Which targets can call tools, so that `omni: true` runs the loop on them (docs/omni.md):
// a slot file that says so ([slot].tool_calling), else what its engine does
// (engines/tool-calling.ts: the built-in engine, a llama-server whose GGUF chat template
// mentions tools); an upstream only when its
// [upstreams.<name>] entry says tool_calling = true. A target that cannot call tools gets
// the request once, unchanged.
import type { ResolvedConfig } from '../config/load.js';
import type { DispatchTarget } from '../dispatch/types.js';
import { engineCallsTools, type TemplateCache, toolsNeedTemplate } from '../engines/tool-calling.js';
import { resolveSlotModel } from '../slots/model.js';

/** What the decision needs to know about a target (all of it from config, plus the template). */
export type ToolCallingInput =
  | { kind: 'upstream'; toolCalling: boolean }
  | { kind: 'slot'; provider: string; toolCalling: boolean | null; template: string | null };

export function canCallTools(input: ToolCallingInput): boolean {
  if (input.kind === 'upstream') return input.toolCalling;
  if (input.toolCalling !== null) return input.toolCalling;
  return engineCallsTools(input.provider, input.template);
}

/** The inputs of canCallTools for a resolved target (reading the template only when it decides). */
export async function toolCallingInput(config: ResolvedConfig, target: DispatchTarget, templates: TemplateCache): Promise<ToolCallingInput> {
  if (target.kind === 'upstream') return { kind: 'upstream', toolCalling: config.upstreams.upstreams[target.upstream]?.tool_calling === true };
  const entry = config.slots.find((e) => e.name === target.slot);
  if (!entry) return { kind: 'slot', provider: 'unknown', toolCalling: false, template: null };
  const { provider, tool_calling: toolCalling, chat_template: override } = entry.config.slot;
  if (toolCalling !== null || !toolsNeedTemplate(provider)) return { kind: 'slot', provider, toolCalling, template: null };
  if (override !== null) return { kind: 'slot', provider, toolCalling, template: override };
  const model = await resolveSlotModel(entry, config.registry).catch(() => null);
  const template = model?.path ? await templates.template(model.path) : null;
  return { kind: 'slot', provider, toolCalling, template };
}
