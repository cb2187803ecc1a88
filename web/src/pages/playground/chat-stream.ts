// A streamed chat answer, folded chunk by chunk from its SSE `data:` lines (OpenAI's
// chat.completion.chunk), pure so it is unit-tested: the text so far, a thinking model's
// reasoning, why it finished, token usage, and the one `data: {"error":…}` event the gateway
// sends when a load fails or a stream breaks off (docs/routing.md).
import { ApiError } from '../../api-error.js';

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatProgress {
  content: string;
  reasoning: string;
  finishReason: string | null;
  usage: ChatUsage | null;
  /** `data: [DONE]` arrived. */
  done: boolean;
  error: ApiError | null;
}

export const EMPTY_PROGRESS: ChatProgress = { content: '', reasoning: '', finishReason: null, usage: null, done: false, error: null };

interface ChunkShape {
  choices?: Array<{ delta?: { content?: unknown; reasoning_content?: unknown }; finish_reason?: unknown }>;
  usage?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function errorOf(error: NonNullable<ChunkShape['error']>): ApiError {
  const code = typeof error.code === 'string' ? error.code : 'upstream.error';
  const message = typeof error.message === 'string' ? error.message : JSON.stringify(error);
  const details = typeof error.details === 'object' && error.details !== null ? (error.details as Record<string, unknown>) : {};
  return new ApiError(code, message, details);
}

/** The progress after one `data:` payload. */
export function foldChunk(progress: ChatProgress, data: string): ChatProgress {
  if (data.trim() === '[DONE]') return { ...progress, done: true };
  let chunk: ChunkShape;
  try {
    chunk = JSON.parse(data) as ChunkShape;
  } catch {
    return { ...progress, error: new ApiError('stream.bad_chunk', `a stream event was not JSON: ${data.slice(0, 120)}`) };
  }
  if (chunk.error) return { ...progress, error: errorOf(chunk.error) };
  let { content, reasoning, finishReason } = progress;
  for (const choice of chunk.choices ?? []) {
    if (typeof choice.delta?.content === 'string') content += choice.delta.content;
    if (typeof choice.delta?.reasoning_content === 'string') reasoning += choice.delta.reasoning_content;
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
  }
  const usage = typeof chunk.usage === 'object' && chunk.usage !== null ? (chunk.usage as ChatUsage) : progress.usage;
  return { ...progress, content, reasoning, finishReason, usage };
}

/** What the page says about how an answer ended. */
export function endNote(progress: ChatProgress, stopped: boolean): string {
  if (stopped) return 'stopped';
  if (progress.error) return 'failed';
  if (progress.finishReason === 'length') return 'cut off at max tokens';
  if (progress.finishReason) return `finished (${progress.finishReason})`;
  return progress.done ? 'finished' : 'ended without a finish reason';
}
