// OmniStream into its outbox: what a client reads of two rounds.
import { describe, expect, it } from 'vitest';
import { OmniStream, Outbox } from './stream.js';

/** Runs `write` on a stream and returns the bytes its outbox gave its reader. */
async function served(write: (stream: OmniStream) => void): Promise<string> {
  const outbox = new Outbox(() => undefined);
  let opened = 0;
  write(new OmniStream(outbox, 'chatcmpl-omni-1', () => opened++));
  expect(opened).toBe(1);
  let text = '';
  for await (const chunk of outbox) text += Buffer.from(chunk).toString('utf8');
  return text;
}

const chunk = (id: string, delta: Record<string, unknown>, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });
const call = (index: number, name: string) => ({ tool_calls: [{ index, id: `c${index}`, type: 'function', function: { name, arguments: '{}' } }] });

describe('OmniStream', () => {
  it('makes two rounds one stream: one id, tool-call indexes counted on, an intermediate end held back', async () => {
    const text = await served((stream) => {
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

describe('Outbox', () => {
  it('gives what was written before and after its reader came, and tells a reader that left early', async () => {
    let left = 0;
    const outbox = new Outbox(() => left++);
    outbox.write('a');
    const reader = outbox[Symbol.asyncIterator]();
    expect(Buffer.from((await reader.next()).value as Uint8Array).toString()).toBe('a');
    const next = reader.next();
    outbox.write('b');
    expect(Buffer.from((await next).value as Uint8Array).toString()).toBe('b');
    await reader.return?.(undefined);
    expect(left).toBe(1);
  });
});
