// One streamed reply of `svc run`: POST /v1/chat/completions with stream:true, each content
// delta handed on as it arrives. An error event in the stream (an engine that failed
// mid-reply) throws as an API error, so it prints like any other.
import { isErrorEnvelope } from '../../protocol/errors.js';
import { ApiError, type ApiClient } from '../client.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The data of one server-sent event (its `data:` lines joined), or undefined for a comment or an event with none. */
export function eventData(event: string): string | undefined {
  const data = event.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
  return data.length > 0 ? data.join('\n') : undefined;
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
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let reply = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return reply;
    buffer += decoder.decode(value, { stream: true }).replace(/\r/g, '');
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const data = eventData(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (data === undefined || data === '') continue;
      if (data === '[DONE]') {
        await reader.cancel().catch(() => undefined);
        return reply;
      }
      const chunk: unknown = JSON.parse(data);
      if (isErrorEnvelope(chunk)) throw new ApiError(response.status, chunk);
      const text = deltaText(chunk);
      if (text) {
        reply += text;
        write(text);
      }
    }
  }
}
