// Reading OpenAI requests into what the engine needs, refusing bad input with a 400 that
// says which field and why. Unknown fields are ignored: clients send many we do not use.
// Defaults are llama-server's (temperature 0.8, top_p 0.95, top_k 40, min_p 0.05), so a
// slot answers the same way whichever of the two engines runs it.
import { invalidRequest } from './http-io.js';

export interface Sampling {
  /** null = until the model stops or the context is full. */
  maxTokens: number | null;
  temperature: number;
  topP: number;
  topK: number;
  minP: number;
  /** null = a random seed. */
  seed: number | null;
  stop: string[];
  /** Choices per prompt. */
  n: number;
  /** llama-server's extension: never stop at an end-of-generation token. */
  ignoreEos: boolean;
  repeatPenalty: number;
  presencePenalty: number;
  frequencyPenalty: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface Common {
  /** The `model` field as sent; echoed in answers (llama-server does the same). */
  model: string | null;
  stream: boolean;
  includeUsage: boolean;
  sampling: Sampling;
}

export interface ChatRequest extends Common {
  messages: ChatMessage[];
  /** `chat_template_kwargs.enable_thinking`, else a top-level `enable_thinking`; null = the template's default. */
  enableThinking: boolean | null;
}

export interface CompletionRequest extends Common {
  prompts: string[];
}

type Body = Record<string, unknown>;

function number(body: Body, key: string, fallback: number, min: number, max: number, integer = false): number {
  const value = body[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw invalidRequest(`'${key}' must be ${integer ? 'an integer' : 'a number'}`);
  }
  if (value < min || value > max) throw invalidRequest(`'${key}' must be between ${min} and ${max}; got ${value}`);
  return value;
}

function boolean(body: Body, key: string): boolean {
  const value = body[key];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalidRequest(`'${key}' must be a boolean`);
  return value;
}

function stopList(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) throw invalidRequest("'stop' must be a string or a list of strings");
  return list.filter((s) => s !== '');
}

function maxTokens(body: Body): number | null {
  // max_completion_tokens is the newer OpenAI name; llama-server also reads n_predict.
  const key = ['max_completion_tokens', 'max_tokens', 'n_predict'].find((k) => body[k] !== undefined && body[k] !== null);
  if (!key) return null;
  const value = number(body, key, -1, -1, 2 ** 31 - 1, true);
  return value < 0 ? null : value;
}

export function readSampling(body: Body): Sampling {
  const seed = number(body, 'seed', -1, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true);
  return {
    maxTokens: maxTokens(body),
    temperature: number(body, 'temperature', 0.8, 0, 100),
    topP: number(body, 'top_p', 0.95, 0, 1),
    topK: number(body, 'top_k', 40, 0, 2 ** 31 - 1, true),
    minP: number(body, 'min_p', 0.05, 0, 1),
    // llama-server: -1 (or none) = random. A seed must fit the sampler's 32 bits.
    seed: seed < 0 ? null : seed % 2 ** 32,
    stop: stopList(body.stop),
    n: number(body, 'n', 1, 1, 16, true),
    ignoreEos: boolean(body, 'ignore_eos'),
    repeatPenalty: number(body, 'repeat_penalty', 1, 0, 10),
    presencePenalty: number(body, 'presence_penalty', 0, -2, 2),
    frequencyPenalty: number(body, 'frequency_penalty', 0, -2, 2),
  };
}

function common(body: Body): Common {
  const options = body.stream_options;
  if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) throw invalidRequest("'stream_options' must be an object");
  return {
    model: typeof body.model === 'string' ? body.model : null,
    stream: boolean(body, 'stream'),
    includeUsage: options ? boolean(options as Body, 'include_usage') : false,
    sampling: readSampling(body),
  };
}

const ROLES: Readonly<Record<string, ChatMessage['role']>> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' };

/** Text of a message's content: a string, null (an empty assistant turn) or text parts. */
function contentText(content: unknown, where: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw invalidRequest(`'${where}.content' must be a string or a list of content parts`);
  return content.map((part: unknown, i) => {
    const p = (part ?? {}) as Body;
    if (p.type !== 'text' || typeof p.text !== 'string') {
      throw invalidRequest(`'${where}.content[${i}]' is a "${String(p.type)}" part; the built-in engine reads only text parts`);
    }
    return p.text;
  }).join('\n');
}

/** Features a client may ask for that this engine does not have: refused, never ignored. */
function refuseUnsupported(body: Body): void {
  if (Array.isArray(body.tools) && body.tools.length > 0) throw invalidRequest("'tools' is not supported by the built-in engine yet; serve this model with llama-server (provider llama-server) for tool calls");
  const format = (body.response_format ?? {}) as Body;
  if (format.type !== undefined && format.type !== 'text') throw invalidRequest(`'response_format' ${JSON.stringify(format.type)} is not supported by the built-in engine yet; only "text"`);
}

/** llama-server's chat template variables: only enable_thinking is read (thinking.ts). */
function enableThinking(body: Body): boolean | null {
  const kwargs = body.chat_template_kwargs;
  if (kwargs !== undefined && kwargs !== null && (typeof kwargs !== 'object' || Array.isArray(kwargs))) throw invalidRequest("'chat_template_kwargs' must be an object");
  const value = (kwargs as Body | null | undefined)?.enable_thinking ?? body.enable_thinking;
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') throw invalidRequest("'chat_template_kwargs.enable_thinking' must be a boolean");
  return value;
}

export function readChatRequest(body: Body): ChatRequest {
  refuseUnsupported(body);
  if (body.messages === undefined) throw invalidRequest("'messages' is required");
  if (!Array.isArray(body.messages)) throw invalidRequest("Expected 'messages' to be an array");
  if (body.messages.length === 0) throw invalidRequest("'messages' must not be empty");
  const messages = body.messages.map((raw: unknown, i): ChatMessage => {
    const message = (raw ?? {}) as Body;
    const role = ROLES[String(message.role)];
    if (!role) throw invalidRequest(`'messages[${i}].role' must be one of system, developer, user, assistant; got ${JSON.stringify(message.role)}`);
    return { role, content: contentText(message.content, `messages[${i}]`) };
  });
  return { ...common(body), messages, enableThinking: enableThinking(body) };
}

export function readCompletionRequest(body: Body): CompletionRequest {
  const prompt = body.prompt;
  const prompts = typeof prompt === 'string' ? [prompt] : prompt;
  if (!Array.isArray(prompts) || prompts.length === 0 || !prompts.every((p) => typeof p === 'string')) {
    throw invalidRequest("'prompt' must be a string or a non-empty list of strings");
  }
  return { ...common(body), prompts };
}
