// `--chat-template` / `--chat-template-file` with llama-server's meanings, mapped onto
// node-llama-cpp's chat wrappers. Without either flag the model's own template is used
// (node-llama-cpp reads tokenizer.chat_template and picks the matching wrapper, or renders
// the Jinja template itself). A value with Jinja syntax is a template; anything else must
// be one of the names below.

/** node-llama-cpp's wrapper names (resolveChatWrapper `type`) we map onto. */
export type WrapperName = 'chatML' | 'llama2Chat' | 'llama3' | 'llama3.1' | 'mistral' | 'gemma' | 'deepSeek' | 'harmony' | 'falconChat' | 'alpacaChat' | 'general';

/** llama-server's built-in template names that have a node-llama-cpp wrapper. */
const LLAMA_SERVER_NAMES: Readonly<Record<string, WrapperName>> = {
  chatml: 'chatML',
  llama2: 'llama2Chat',
  'llama2-sys': 'llama2Chat',
  llama3: 'llama3',
  'llama3.1': 'llama3.1',
  'mistral-v1': 'mistral',
  'mistral-v3': 'mistral',
  'mistral-v3-tekken': 'mistral',
  'mistral-v7': 'mistral',
  'mistral-v7-tekken': 'mistral',
  gemma: 'gemma',
  deepseek: 'deepSeek',
  deepseek2: 'deepSeek',
  deepseek3: 'deepSeek',
  'gpt-oss': 'harmony',
  falcon: 'falconChat',
  alpaca: 'alpacaChat',
  general: 'general',
};

export const TEMPLATE_NAMES: readonly string[] = Object.keys(LLAMA_SERVER_NAMES);

export type TemplateChoice =
  | { kind: 'model' }
  | { kind: 'named'; wrapper: WrapperName }
  | { kind: 'jinja'; template: string };

const looksLikeJinja = (value: string) => value.includes('{%') || value.includes('{{');

/**
 * What --chat-template asks for. `readFile` reads --chat-template-file (a Jinja template).
 * Throws an Error naming the accepted names for an unknown one.
 */
export function templateChoice(flag: string | null, file: string | null, readFile: (path: string) => string): TemplateChoice {
  if (file !== null) return { kind: 'jinja', template: readFile(file) };
  if (flag === null || flag === '' || flag === 'auto') return { kind: 'model' };
  if (looksLikeJinja(flag)) return { kind: 'jinja', template: flag };
  const wrapper = LLAMA_SERVER_NAMES[flag.toLowerCase()];
  if (!wrapper) throw new Error(`--chat-template "${flag}" is not a template the built-in engine knows; use one of ${TEMPLATE_NAMES.join(', ')}, or a Jinja template (--chat-template-file)`);
  return { kind: 'named', wrapper };
}
