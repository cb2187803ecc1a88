// OmniStream on a real HTTP response: what a client reads of two rounds.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OmniStream } from './stream.js';

/** Serves one request with `write` and returns the body the client read. */
async function served(write: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((_req, res) => write(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    return await res.text();
  } finally {
    server.close();
  }
}

const chunk = (id: string, delta: Record<string, unknown>, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const call = (index: number, name: string) => ({ tool_calls: [{ index, id: `c${index}`, type: 'function', function: { name, arguments: '{}' } }] });

describe('OmniStream', () => {
  it('makes two rounds one stream: one id, tool-call indexes counted on, an intermediate end held back', async () => {
    const text = await served((res) => {
      const stream = new OmniStream(res, 'chatcmpl-omni-1');
      stream.chunk(chunk('a', { role: 'assistant', content: '' }));
      stream.chunk(chunk('a', call(0, 'x')));
      stream.chunk(chunk('a', call(1, 'y')));
      stream.chunk(chunk('a', {}, 'tool_calls'));
      stream.chunk({ id: 'a', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { total_tokens: 3 } });
      stream.endRound(false);
      stream.tool({ id: 'c0', name: 'x', status: 'running' });
      stream.tool({ id: 'c0', name: 'x', status: 'done', duration_ms: 1 });
      stream.chunk(chunk('b', call(0, 'z')));
      stream.chunk(chunk('b', {}, 'tool_calls'));
      stream.endRound(false);
      stream.chunk(chunk('c', { content: 'hi' }));
      stream.chunk(chunk('c', {}, 'stop'));
      stream.chunk({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { total_tokens: 9 } });
      stream.endRound(true);
      stream.done();
    });
    const events = text.trim().split('\n\n').map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { id: string; choices: Array<{ delta: { tool_calls?: Array<{ index: number }>; svc_tool?: { status: string } }; finish_reason: string | null }>; usage?: { total_tokens: number } });
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(['chatcmpl-omni-1']));
    expect(chunks.flatMap((c) => c.choices.flatMap((ch) => ch.delta.tool_calls ?? []).map((t) => t.index))).toEqual([0, 1, 2]);
    expect(chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter(Boolean)).toEqual(['stop']);
    expect(chunks.filter((c) => c.usage).map((c) => c.usage!.total_tokens)).toEqual([9]);
    expect(chunks.map((c) => c.choices[0]?.delta.svc_tool?.status).filter(Boolean)).toEqual(['running', 'done']);
  });
});
