// Answer and chunk bodies, shaped like llama-server's (which follow OpenAI's): the same
// fields in the same places, so a client or the gateway cannot tell the engines apart by
// shape. Streams are OpenAI's: a role delta first, content deltas, a final
// empty delta carrying finish_reason, then [DONE] (written by the caller).
import { randomBytes } from 'node:crypto';
import type { AnswerToolCall, FinishReason, TokenLogprob, ToolCallDelta } from './answer-types.js';

/** Identifies the engine build in answers, as llama-server's "b<build>-<commit>". */
export const SYSTEM_FINGERPRINT = 'svc-builtin-node-llama-cpp';

export interface AnswerMeta {
  id: string;
  created: number;
  model: string;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChoiceResult {
  index: number;
  text: string;
  /** Thought segments of a thinking model, when there were any. */
  reasoning?: string;
  finishReason: FinishReason;
  toolCalls?: AnswerToolCall[];
  /** Per-token logprobs when they were asked for; absent otherwise. */
  logprobs?: TokenLogprob[];
  /** Where the completion starts in prompt + completion (legacy logprobs' text_offset). */
  textOffset?: number;
}

export function answerMeta(prefix: 'chatcmpl' | 'cmpl', model: string, now = Date.now()): AnswerMeta {
  return { id: `${prefix}-${randomBytes(16).toString('hex')}`, created: Math.floor(now / 1000), model };
}

export function usage(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

const head = (meta: AnswerMeta, object: string) => ({ id: meta.id, object, created: meta.created, model: meta.model, system_fingerprint: SYSTEM_FINGERPRINT });

export function chatCompletion(meta: AnswerMeta, choices: readonly ChoiceResult[], used: Usage) {
  return {
    ...head(meta, 'chat.completion'),
    choices: choices.map((c) => ({
      index: c.index,
      message: {
        role: 'assistant',
        // An answer that calls tools has no content unless the model wrote some before the calls.
        content: c.toolCalls?.length && c.text === '' ? null : c.text,
        ...(c.reasoning && { reasoning_content: c.reasoning }),
        ...(c.toolCalls?.length && { tool_calls: c.toolCalls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })) }),
      },
      ...(c.logprobs && { logprobs: chatLogprobs(c.logprobs) }),
      finish_reason: c.finishReason,
    })),
    usage: used,
  };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: ToolCallDelta[];
}

/** OpenAI's chat logprobs: every token with its alternatives; `refusal` is for refusals, which this engine never makes. */
export function chatLogprobs(entries: readonly TokenLogprob[]) {
  return { content: entries.map((e) => ({ token: e.token, logprob: e.logprob, bytes: e.bytes, top_logprobs: e.top_logprobs })), refusal: null };
}

export function chatChunk(meta: AnswerMeta, index: number, delta: ChatDelta, finishReason: FinishReason | null = null, logprobs?: readonly TokenLogprob[]) {
  return { ...head(meta, 'chat.completion.chunk'), choices: [{ index, delta, ...(logprobs && { logprobs: chatLogprobs(logprobs) }), finish_reason: finishReason }] };
}

/** stream_options.include_usage: one more chunk, with no choices, before [DONE]. */
export function chatUsageChunk(meta: AnswerMeta, used: Usage) {
  return { ...head(meta, 'chat.completion.chunk'), choices: [], usage: used };
}

/**
 * The completions API's legacy logprobs: parallel lists, alternatives as {token: logprob}
 * maps, and each token's offset in prompt + completion (`offset` is where these tokens start).
 */
export function legacyLogprobs(entries: readonly TokenLogprob[], offset: number) {
  const text_offset: number[] = [];
  for (const e of entries) {
    text_offset.push(offset);
    offset += e.token.length;
  }
  return {
    tokens: entries.map((e) => e.token),
    token_logprobs: entries.map((e) => e.logprob),
    top_logprobs: entries.map((e) => Object.fromEntries(e.top_logprobs.map((t) => [t.token, t.logprob]))),
    text_offset,
  };
}

export function textCompletion(meta: AnswerMeta, choices: readonly ChoiceResult[], used: Usage) {
  return {
    ...head(meta, 'text_completion'),
    choices: choices.map((c) => ({ index: c.index, text: c.text, logprobs: c.logprobs ? legacyLogprobs(c.logprobs, c.textOffset ?? 0) : null, finish_reason: c.finishReason })),
    usage: used,
  };
}

/** Streamed legacy logprobs: the chunk's tokens and where they start. */
export interface ChunkLogprobs {
  entries: readonly TokenLogprob[];
  offset: number;
}

/** A completion stream chunk; llama-server puts usage on the last one. */
export function textChunk(meta: AnswerMeta, index: number, text: string, finishReason: FinishReason | null = null, used?: Usage, logprobs?: ChunkLogprobs) {
  return {
    ...head(meta, 'text_completion'),
    choices: [{ index, text, logprobs: logprobs ? legacyLogprobs(logprobs.entries, logprobs.offset) : null, finish_reason: finishReason }],
    ...(used && { usage: used }),
  };
}
