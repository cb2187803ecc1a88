// One generation on one context sequence: a chat turn through the model's chat template
// (LlamaChat), or a raw completion (LlamaCompletion). The prompt must fit the sequence's
// context and the answer stops where the context ends, as llama-server does by default
// (no context shift): a reply never silently forgets the start of its own prompt.
import { randomInt } from 'node:crypto';
import {
  LlamaChat, LlamaCompletion, TokenBias,
  type ChatHistoryItem, type ChatModelFunctions, type ChatWrapper, type LlamaChatResponseChunk, type LlamaContextSequence, type LlamaModel,
} from 'node-llama-cpp';
import type { AnswerToolCall, FinishReason, TokenLogprob, ToolCallDelta } from './answer-types.js';
import { toChatHistory } from './chat-history.js';
import { BuiltinEngineError, notSupported } from './http-io.js';
import type { ChatMessage, Sampling } from './request.js';

export type { FinishReason } from './answer-types.js';

export interface Generated {
  text: string;
  /** A thinking model's thought segments (llama-server's reasoning_content); '' for others. */
  reasoning: string;
  finishReason: FinishReason;
  promptTokens: number;
  completionTokens: number;
  /** The client left (or the signal fired) before the end. */
  aborted: boolean;
  toolCalls?: AnswerToolCall[];
  /** Per-token logprobs, when they were asked for. */
  logprobs?: TokenLogprob[];
}

/**
 * A piece of an answer as it is generated: text, a thinking model's thought segment, or a
 * piece of a tool call; `logprobs` are those of the tokens that made it (when asked for).
 */
export interface Delta {
  content?: string;
  reasoning?: string;
  toolCall?: ToolCallDelta;
  logprobs?: TokenLogprob[];
}

export interface GenerationTarget {
  model: LlamaModel;
  sequence: LlamaContextSequence;
  contextSize: number;
}

/** llama-server's error for a prompt that does not fit (type exceed_context_size_error). */
function exceedsContext(promptTokens: number, contextSize: number): BuiltinEngineError {
  return new BuiltinEngineError('request.context_exceeded', 'exceed_context_size_error', `the request exceeds the available context size (${promptTokens} prompt tokens, ${contextSize} in the context), try increasing it`, {
    n_prompt_tokens: promptTokens, n_ctx: contextSize,
  });
}

/** How many tokens may be generated: what was asked, at most what is left of the context. */
export function tokenBudget(maxTokens: number | null, promptTokens: number, contextSize: number): number {
  if (promptTokens >= contextSize) throw exceedsContext(promptTokens, contextSize);
  return Math.min(maxTokens ?? Infinity, contextSize - promptTokens);
}

const EOG_BANS = new WeakMap<LlamaModel, TokenBias>();

/**
 * ignore_eos: every end-of-generation token is banned. TokenBias.set() skips those tokens on
 * purpose (node-llama-cpp 3.22), so this writes the bias map it hands to the sampler.
 */
export function eogBan(model: LlamaModel): TokenBias {
  const cached = EOG_BANS.get(model);
  if (cached) return cached;
  const bias = new TokenBias(model.tokenizer);
  const biases = (bias as unknown as { _biases?: unknown })._biases;
  if (!(biases instanceof Map)) throw notSupported('ignore_eos is not supported with this version of node-llama-cpp');
  const vocabulary = model.fileInfo.metadata.tokenizer?.ggml?.tokens?.length ?? 0;
  for (let token = 0; token < vocabulary; token++) if (model.isEogToken(token as never)) biases.set(token, -Infinity);
  EOG_BANS.set(model, bias);
  return bias;
}

export function samplerOptions(model: LlamaModel, s: Sampling, seed: number) {
  const penalised = s.repeatPenalty !== 1 || s.presencePenalty !== 0 || s.frequencyPenalty !== 0;
  return {
    temperature: s.temperature, topP: s.topP, topK: s.topK, minP: s.minP, seed,
    customStopTriggers: s.stop,
    // llama-server's defaults penalise nothing; node-llama-cpp's would, so they are off unless asked for.
    repeatPenalty: penalised ? { lastTokens: 64, penalty: s.repeatPenalty, presencePenalty: s.presencePenalty, frequencyPenalty: s.frequencyPenalty } : false as const,
    ...(s.ignoreEos && { tokenBias: eogBan(model) }),
  };
}

/** The seed of choice `index`: the request's seed plus the index, or a fresh random one. */
export function choiceSeed(seed: number | null, index: number): number {
  return seed === null ? randomInt(2 ** 32) : (seed + index) % 2 ** 32;
}

/** Prompt tokens of a chat: the template rendered up to the start of the assistant's answer (with the tools documented, if any). */
export function chatPromptTokens(model: LlamaModel, wrapper: ChatWrapper, history: readonly ChatHistoryItem[], functions?: ChatModelFunctions): number {
  const open = history.at(-1)?.type === 'model' ? [...history] : [...history, { type: 'model' as const, response: [] }];
  return wrapper.generateContextState({ chatHistory: open, ...(functions && { availableFunctions: functions, documentFunctionParams: true }) }).contextText.tokenize(model.tokenizer).length;
}

export async function generateChat(target: GenerationTarget, wrapper: ChatWrapper, messages: readonly ChatMessage[], s: Sampling, seed: number, onDelta: (d: Delta) => void, signal: AbortSignal): Promise<Generated> {
  const history = toChatHistory(messages);
  const promptTokens = chatPromptTokens(target.model, wrapper, history);
  const budget = tokenBudget(s.maxTokens, promptTokens, target.contextSize);
  if (budget === 0) return { text: '', reasoning: '', finishReason: 'length', promptTokens, completionTokens: 0, aborted: false };
  const chat = new LlamaChat({ contextSequence: target.sequence, chatWrapper: wrapper });
  let completionTokens = 0;
  let text = '';
  let reasoning = '';
  try {
    const result = await chat.generateResponse(history, {
      ...samplerOptions(target.model, s, seed), maxTokens: budget, signal, stopOnAbortSignal: true,
      onToken: (tokens) => (completionTokens += tokens.length),
      onResponseChunk: (chunk: LlamaChatResponseChunk) => {
        if (chunk.text === '') return;
        if (chunk.type === 'segment' && chunk.segmentType === 'thought') {
          reasoning += chunk.text;
          return onDelta({ reasoning: chunk.text });
        }
        text += chunk.text;
        onDelta({ content: chunk.text });
      },
    });
    const reason = result.metadata.stopReason;
    return { text, reasoning, finishReason: reason === 'maxTokens' ? 'length' : 'stop', promptTokens, completionTokens, aborted: reason === 'abort' || signal.aborted };
  } finally {
    chat.dispose({ disposeSequence: false });
  }
}

export async function generateCompletion(target: GenerationTarget, prompt: string, s: Sampling, seed: number, onText: (text: string) => void, signal: AbortSignal): Promise<Generated> {
  const { model } = target;
  const withBos = model.tokens.shouldPrependBosToken && model.tokens.bos !== null;
  // LlamaCompletion prepends BOS itself; counted here so usage says what the model saw.
  const tokens = model.tokenize(prompt, false, withBos ? 'trimLeadingSpace' : undefined);
  const promptTokens = tokens.length + (withBos ? 1 : 0);
  const budget = tokenBudget(s.maxTokens, promptTokens, target.contextSize);
  if (budget === 0) return { text: '', reasoning: '', finishReason: 'length', promptTokens, completionTokens: 0, aborted: false };
  const completion = new LlamaCompletion({ contextSequence: target.sequence });
  let completionTokens = 0;
  let text = '';
  // LlamaCompletion drops the space that starts the first generated word ("walk" after
  // "Once upon a"); a completion continues the prompt, so it keeps it, as llama-server does.
  let firstPiece: string | null = null;
  try {
    const result = await completion.generateCompletionWithMeta(tokens, {
      ...samplerOptions(model, s, seed), maxTokens: budget, signal, stopOnAbortSignal: true, disableContextShift: true,
      onToken: (generated) => {
        firstPiece ??= model.detokenize(generated, false, tokens);
        completionTokens += generated.length;
      },
      onTextChunk: (chunk) => {
        const piece = text === '' && firstPiece?.startsWith(' ') && !chunk.startsWith(' ') ? ` ${chunk}` : chunk;
        text += piece;
        onText(piece);
      },
    });
    const reason = result.metadata.stopReason;
    return { text, reasoning: '', finishReason: reason === 'maxTokens' ? 'length' : 'stop', promptTokens, completionTokens, aborted: reason === 'abort' || signal.aborted };
  } finally {
    completion.dispose({ disposeSequence: false });
  }
}
