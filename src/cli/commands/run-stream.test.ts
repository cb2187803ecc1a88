import { describe, expect, it } from 'vitest';
import { ApiResponseError, type ApiClient } from '../client.js';
import { deltaText, streamReply } from './run-stream.js';

/** A client whose chat stream answers with these chunks of bytes (then ends, or stays open), and says whether the body was cancelled. */
function clientStreaming(chunks: string[], end: 'close' | 'stay open') {
  const seen = { cancelled: false };
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (end === 'close') controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  const client = { chatStream: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }) } as unknown as ApiClient;
  return { client, seen };
}

const delta = (content: string) => `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;

describe('reading the chat stream', () => {
  it('deltaText: the content of a delta, else ""', () => {
    expect(deltaText({ choices: [{ delta: { content: 'hi' } }] })).toBe('hi');
    expect(deltaText({ choices: [{ delta: { role: 'assistant', content: null } }] })).toBe('');
    expect(deltaText({ choices: [{ delta: {}, finish_reason: 'stop' }] })).toBe('');
    expect(deltaText({ choices: [], usage: { total_tokens: 3 } })).toBe('');
  });

  it('streamReply: hands on each delta, skips comments and empty events, stops at [DONE] and cancels the body', async () => {
    const whole = `: svc: loading slot chat\n\n${delta('Hel')}data:\n\n${delta('lo')}data: [DONE]\n\n`;
    // Split in the middle of a line and of the line end, as the network may.
    const { client, seen } = clientStreaming([whole.slice(0, 30), whole.slice(30, 71), whole.slice(71)], 'stay open');
    const written: string[] = [];
    expect(await streamReply(client, 'chat', [{ role: 'user', content: 'hi' }], new AbortController().signal, (t) => written.push(t))).toBe('Hello');
    expect(written).toEqual(['Hel', 'lo']);
    expect(seen.cancelled).toBe(true);
  });

  it('streamReply: an error event mid-reply throws it as the API\'s error', async () => {
    const error = { error: { code: 'slot.crashed', message: 'the engine exited', details: {} } };
    const { client } = clientStreaming([`${delta('a')}\r\ndata: ${JSON.stringify(error)}\r\n\r\n`], 'stay open');
    const failure = await streamReply(client, 'chat', [], new AbortController().signal, () => undefined).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiResponseError);
    expect((failure as ApiResponseError).code).toBe('slot.crashed');
  });

  it('streamReply: a stream that ends without [DONE] gives what came', async () => {
    const { client } = clientStreaming([delta('x'), delta('y')], 'close');
    expect(await streamReply(client, 'chat', [], new AbortController().signal, () => undefined)).toBe('xy');
  });
});
