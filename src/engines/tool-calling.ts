// Whether a slot's engine can call tools when its slot file does not say: an engines
// question, asked by the omni loop (omni/capability.ts). The built-in engine parses tool
// calls itself; llama-server renders `tools` only through the model's chat template, so a
// template that names them is the sign; no other engine is assumed to.
import { ggufModelFacts, readGgufHeader } from './gguf/reader.js';

/** A template that renders `tools` names them (Jinja: `tools`, `tool_calls`, `tool_call`). */
const TEMPLATE_TOOLS = /\btools?\b|\btool_calls?\b/;

/** Whether an engine of `provider` calls tools with this chat template (null: none known). */
export function engineCallsTools(provider: string, template: string | null): boolean {
  if (provider === 'builtin') return true;
  if (provider === 'llama-server') return template !== null && TEMPLATE_TOOLS.test(template);
  return false;
}

/** Whether the answer depends on the model's chat template (only then is it read). */
export const toolsNeedTemplate = (provider: string): boolean => provider === 'llama-server';

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
