// Reading OpenAI requests into what the engine needs, refusing bad input with a 400 that
// says which field and why. A feature the engine cannot serve is refused (refuseUnsupported);
// fields that change nothing in a local answer (user, metadata, store...) are not read, and
// docs/builtin-engine.md lists them.
// Defaults are llama-server's (temperature 0.8, top_p 0.95, top_k 40, min_p 0.05), so a
// slot answers the same way whichever of the two engines runs it.
import { readMessages, type ChatMessage } from './chat-messages.js';
import { invalidAt } from './field-errors.js';
import { invalidRequest } from './http-io.js';
import { readResponseFormat, type ResponseGrammar } from './response-format.js';
import { readTools, type ToolsRequest } from './tool-request.js';

export type { ChatMessage } from './chat-messages.js';

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
  tools: ToolsRequest;
  /** `response_format` json_object / json_schema as GBNF; null = free text. */
  responseGrammar: ResponseGrammar;
  /** `logprobs: true`: how many alternatives per token (`top_logprobs`, 0-20); null = no logprobs. */
  logprobs: number | null;
}

export interface CompletionRequest extends Common {
  prompts: string[];
  /** The legacy `logprobs` (0-5 alternatives per token); null = none. */
  logprobs: number | null;
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

/** Fields of OpenAI's API this engine has no way to serve: refused, never ignored. */
function refuseUnsupported(body: Body, fields: readonly string[]): void {
  for (const field of fields) {
    const value = body[field];
    const asked = field === 'echo' ? value === true
      : field === 'best_of' ? typeof value === 'number' && value > 1
      : field === 'suffix' ? typeof value === 'string' && value !== ''
      : field === 'logit_bias' ? typeof value === 'object' && value !== null && Object.keys(value).length > 0
      : value !== undefined && value !== null;
    if (asked) throw invalidAt(field, `is not supported by the built-in engine (${UNSUPPORTED[field]})`);
  }
}

const UNSUPPORTED: Readonly<Record<string, string>> = {
  logit_bias: 'serve this model with llama-server (provider llama-server) for token biases',
  audio: 'it generates text only',
  prediction: 'it has no predicted outputs',
  web_search_options: 'it has no web search',
  echo: 'it returns the completion only; prepend the prompt yourself',
  best_of: 'ask for n choices and pick one',
  suffix: 'it has no fill-in-the-middle',
};

function chatLogprobs(body: Body): number | null {
  const wanted = body.logprobs ?? false;
  if (typeof wanted !== 'boolean') throw invalidAt('logprobs', 'must be a boolean in a chat request (top_logprobs says how many alternatives)');
  const top = body.top_logprobs;
  if (top === undefined || top === null) return wanted ? 0 : null;
  if (!wanted) throw invalidAt('top_logprobs', 'needs `logprobs: true`');
  return number(body, 'top_logprobs', 0, 0, 20, true);
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
  const messages = readMessages(body.messages);
  refuseUnsupported(body, ['logit_bias', 'audio', 'prediction', 'web_search_options']);
  return {
    ...common(body), messages, enableThinking: enableThinking(body),
    tools: readTools(body), responseGrammar: readResponseFormat(body), logprobs: chatLogprobs(body),
  };
}

export function readCompletionRequest(body: Body): CompletionRequest {
  const prompt = body.prompt;
  const prompts = typeof prompt === 'string' ? [prompt] : prompt;
  if (!Array.isArray(prompts) || prompts.length === 0 || !prompts.every((p) => typeof p === 'string')) {
    throw invalidRequest("'prompt' must be a string or a non-empty list of strings");
  }
  refuseUnsupported(body, ['logit_bias', 'echo', 'best_of', 'suffix']);
  const logprobs = body.logprobs === undefined || body.logprobs === null ? null : number(body, 'logprobs', 0, 0, 5, true);
  return { ...common(body), prompts, logprobs };
}
