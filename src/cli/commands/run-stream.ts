// One streamed reply of `svc run`: POST /v1/chat/completions with stream:true, each content
// delta handed on as it arrives. An error event in the stream (an engine that failed
// mid-reply) throws as an API error, so it prints like any other.
import { isErrorEnvelope } from '../../protocol/errors.js';
import { ApiResponseError, type ApiClient } from '../client.js';
import { eventData } from '../event-stream.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The text a chunk adds to the reply ('' for the role chunk, the final one, usage). */
export function deltaText(chunk: unknown): string {
  const content = (chunk as { choices?: Array<{ delta?: { content?: unknown } }> }).choices?.[0]?.delta?.content;
  return typeof content === 'string' ? content : '';
}

/**
 * Stream the reply to `messages` from `model` (a slot name), calling `write` with each piece;
 * resolves with the whole reply. Aborting `signal` rejects (the caller knows it aborted).
 */
export async function streamReply(client: ApiClient, model: string, messages: readonly ChatMessage[], signal: AbortSignal, write: (text: string) => void): Promise<string> {
  const response = await client.chatStream({ model, messages: [...messages] }, signal);
  let reply = '';
  // Leaving the loop ([DONE], or an error event) cancels the body.
  for await (const data of eventData(response.body)) {
    if (data === '') continue;
    if (data === '[DONE]') break;
    const chunk: unknown = JSON.parse(data);
    if (isErrorEnvelope(chunk)) throw new ApiResponseError(response.status, chunk);
    const text = deltaText(chunk);
    if (text) {
      reply += text;
      write(text);
    }
  }
  return reply;
}
