// Which of the slot file's keys a slot uses, by its type, device and engine as the form has
// them now: an llm slot's form shows no TTS defaults, no [image] or [npu] table and not the
// deprecated rope_freq_base, so a newcomer is not asked about what the slot never reads.
// A key the slot file already sets away from its default is shown whatever the slot is, so
// the form never hides what the file says (and such a key can still be emptied). Pure.
import type { FileControl } from './file-fields.js';

/** The form's type, device and provider ("" = the default: llm; the probe's device; the engine chosen by type). */
export interface SlotFacts {
  type: string;
  device: string;
  provider: string;
}

const typeOf = (facts: SlotFacts) => facts.type || 'llm';

/** Types whose engine loads a language model with a context window (llama-server, the built-in engine). */
const MODEL_TYPES: ReadonlySet<string> = new Set(['llm', 'embedding', 'reranking']);

/** Keys only one kind of slot reads, and what decides it. */
const USED_BY: Readonly<Record<string, (facts: SlotFacts) => boolean>> = {
  'slot.default_voice': (f) => typeOf(f) === 'tts',
  'slot.default_speed': (f) => typeOf(f) === 'tts',
  'slot.default_response_format': (f) => typeOf(f) === 'tts',
  // Chat behaviour: reasoning, templates, tools, images in, multi-token prediction.
  'slot.enable_thinking': (f) => typeOf(f) === 'llm',
  'slot.mtp': (f) => typeOf(f) === 'llm',
  'slot.chat_template': (f) => typeOf(f) === 'llm',
  'slot.tool_calling': (f) => typeOf(f) === 'llm',
  'slot.vision': (f) => typeOf(f) === 'llm',
  'slot.rpc_workers': (f) => MODEL_TYPES.has(typeOf(f)),
  'slot.gpu_index': (f) => f.device !== 'cpu' && f.device !== 'npu',
  'model.n_gpu_layers': (f) => MODEL_TYPES.has(typeOf(f)) && f.device !== 'cpu' && f.device !== 'npu',
  // Deprecated: read by nothing (docs/configuration.md); shown only while a file still sets it.
  'model.rope_freq_base': () => false,
};

/** The [npu] table is read by the NPU's anchor slot: an llm slot on device npu (or the flm engine). */
const npuUsed = (facts: SlotFacts) => typeOf(facts) === 'llm' && (facts.device === 'npu' || facts.provider === 'flm');

export function keyUsed(control: FileControl, facts: SlotFacts): boolean {
  if (control.section === 'npu') return npuUsed(facts);
  if (control.section === 'image') return typeOf(facts) === 'image';
  return USED_BY[control.path]?.(facts) ?? true;
}

/** Whether the form's context size applies to a slot of this type. */
export const contextUsed = (facts: SlotFacts): boolean => MODEL_TYPES.has(typeOf(facts));

/** The controls the form shows: what the slot uses, and what its file sets away from the default (`fileStart`: the file's texts). */
export function shownControls(controls: readonly FileControl[], facts: SlotFacts, fileStart: Readonly<Record<string, string>>): FileControl[] {
  return controls.filter((control) => keyUsed(control, facts) || (fileStart[control.path] ?? '').trim() !== control.defaultText);
}
