// One round of the loop: the model called in process through the dispatcher (the slot made
// ready, the request metered, exactly as a client's request), its answer read from the dispatcher's
// result. A streamed round hands each chunk to the client's stream as it arrives and adds up
// the message (content and tool calls) on the side; a round that does not stream reads the
// completion at its end. An error answer comes back as it is, for the loop to relay.
import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { DispatchTarget } from '../dispatch/types.js';
import type { ErrorEnvelope } from '../protocol/errors.js';
import { contentTypeOf, isStream, readBody } from '../dispatch/result.js';
import type { OmniStream } from './stream.js';

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface AssistantMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
}

export type RoundResult =
  | { ok: true; message: AssistantMessage; completion: Record<string, unknown> | null }
  /** The model's error answer: as it came (status, headers, body) and as the envelope. */
  | { ok: false; status: number; headers: Record<string, unknown>; body: Buffer; envelope: ErrorEnvelope | null };

export interface RoundRequest {
  dispatcher: Pick<Dispatcher, 'dispatch'>;
  model: string;
  /** The chat body for the target (model id filled in by the caller). */
  body(upstreamModel: string, target: DispatchTarget): string;
  /** Where a streamed round goes; absent, the round does not stream. */
  stream?: OmniStream;
  signal: AbortSignal;
}

export async function callModel(request: RoundRequest): Promise<RoundResult> {
  const { stream, signal } = request;
  const message = new MessageBuilder();
  let streamError: ErrorEnvelope | null = null;
  const decoder = new StringDecoder('utf8');
  const parser = createParser({
    onEvent: (event) => {
      if (event.data === '[DONE]') return;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        // A chunk that is not JSON is no chunk of a chat stream: the round fails with the engine's words.
        streamError = { error: { code: 'upstream.error', message: `the model sent a stream chunk that is not JSON: ${event.data.slice(0, 200)}`, details: {} } };
        return;
      }
      if (data.error) {
        streamError = data as unknown as ErrorEnvelope;
        return;
      }
      message.add(data);
      stream!.chunk(data);
    },
    onComment: (comment) => stream!.comment(comment),
  });
  const result = await request.dispatcher.dispatch({
    model: request.model, route: 'chat', upstreamPath: '/chat/completions', contentType: 'application/json', stream: stream !== undefined,
    accepts: /^\s*(application\/([\w.+-]*\+)?json|text\/event-stream)\b/i,
    body: request.body, signal,
  });
  if (result.status >= 400) return errorResult(result.status, result.headers, await readBody(result.body));
  const sse = /event-stream/i.test(contentTypeOf(result.headers));
  if (stream && sse && isStream(result.body)) {
    for await (const chunk of result.body) parser.feed(decoder.write(chunk as Buffer));
  }
  signal.throwIfAborted();
  if (streamError) return { ok: false, status: 502, headers: {}, body: Buffer.from(JSON.stringify(streamError)), envelope: streamError };
  if (stream && sse) return { ok: true, message: message.build(), completion: null };
  // Not streamed (asked so, or the engine answered JSON to a stream request).
  const completion = JSON.parse((await readBody(result.body)).toString('utf8')) as Record<string, unknown>;
  const first = (completion.choices as Array<{ message?: AssistantMessage }> | undefined)?.[0]?.message;
  return { ok: true, message: { role: 'assistant', content: first?.content ?? null, ...(first?.tool_calls?.length && { tool_calls: first.tool_calls }) }, completion };
}

function errorResult(status: number, headers: Record<string, unknown>, body: Buffer): RoundResult {
  let envelope: ErrorEnvelope | null = null;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as ErrorEnvelope;
    if (parsed?.error) envelope = parsed;
  } catch { /* not JSON: relayed as it is */ }
  return { ok: false, status, headers, body, envelope };
}

/** Adds up a streamed message: content, and tool calls by index (id and name once, arguments in pieces). */
class MessageBuilder {
  private content = '';
  private hasContent = false;
  private readonly calls = new Map<number, ToolCall>();

  add(chunk: Record<string, unknown>): void {
    const delta = (chunk.choices as Array<{ delta?: Record<string, unknown> }> | undefined)?.[0]?.delta;
    if (!delta) return;
    if (typeof delta.content === 'string') {
      this.content += delta.content;
      this.hasContent = true;
    }
    const calls = delta.tool_calls as Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }> | undefined;
    for (const piece of calls ?? []) {
      const index = piece.index ?? 0;
      let call = this.calls.get(index);
      if (!call) this.calls.set(index, (call = { id: '', type: 'function', function: { name: '', arguments: '' } }));
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.function.name += piece.function.name;
      if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
    }
  }

  build(): AssistantMessage {
    const calls = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return { role: 'assistant', content: this.hasContent ? this.content : null, ...(calls.length > 0 && { tool_calls: calls }) };
  }
}
