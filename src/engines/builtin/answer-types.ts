// The pieces of an answer that generation produces and answers.ts shapes: shared by both
// sides, so neither has to import the other.
import type { TokenPiece } from './token-bytes.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls';

export interface TokenLogprob extends TokenPiece {
  logprob: number;
  /** The most likely tokens at this step, best first (as many as asked). */
  top_logprobs: (TokenPiece & { logprob: number })[];
}

/** A function call of an answer, in OpenAI's terms. */
export interface AnswerToolCall {
  id: string;
  name: string;
  /** Compact JSON text, exactly as generated (and as streamed). */
  arguments: string;
}

/** A streamed piece of a tool call: the first names it (id, type, name), the rest add to its arguments. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}
