// Answer and chunk bodies, shaped like llama-server's (which follow OpenAI's): the same
// fields in the same places, so a client or the gateway cannot tell the engines apart by
// shape. Streams follow SPEC.md "Streaming": a role delta first, content deltas, a final
// empty delta carrying finish_reason, then [DONE] (written by the caller).
import { randomBytes } from 'node:crypto';
import type { FinishReason } from './generate.js';

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
      message: { role: 'assistant', content: c.text, ...(c.reasoning && { reasoning_content: c.reasoning }) },
      finish_reason: c.finishReason,
    })),
    usage: used,
  };
}

export interface ChatDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string;
}

export function chatChunk(meta: AnswerMeta, index: number, delta: ChatDelta, finishReason: FinishReason | null = null) {
  return { ...head(meta, 'chat.completion.chunk'), choices: [{ index, delta, finish_reason: finishReason }] };
}

/** stream_options.include_usage: one more chunk, with no choices, before [DONE]. */
export function chatUsageChunk(meta: AnswerMeta, used: Usage) {
  return { ...head(meta, 'chat.completion.chunk'), choices: [], usage: used };
}

export function textCompletion(meta: AnswerMeta, choices: readonly ChoiceResult[], used: Usage) {
  return {
    ...head(meta, 'text_completion'),
    choices: choices.map((c) => ({ index: c.index, text: c.text, logprobs: null, finish_reason: c.finishReason })),
    usage: used,
  };
}

/** A completion stream chunk; llama-server puts usage on the last one. */
export function textChunk(meta: AnswerMeta, index: number, text: string, finishReason: FinishReason | null = null, used?: Usage) {
  return {
    ...head(meta, 'text_completion'),
    choices: [{ index, text, logprobs: null, finish_reason: finishReason }],
    ...(used && { usage: used }),
  };
}
