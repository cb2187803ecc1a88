import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ResponsesStream } from './stream.js';
import type { Json, ResponseMeta } from './types.js';

const meta: ResponseMeta = { id: 'resp_1', createdAt: 1_700_000_000, model: 'tiny', echo: { instructions: null, tools: [] } };

/** A chat chunk as llama-server sends it. */
const chunk = (delta: Json, finish: string | null = null): Json => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'tiny', choices: [{ index: 0, delta, finish_reason: finish }] });
const call = (index: number, fn: Json, id?: string): Json => ({ index, ...(id && { id, type: 'function' }), function: fn });
const usageChunk: Json = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'tiny', choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } };

function run(chunks: Json[], end: (stream: ResponsesStream) => Json = (s) => s.finish()) {
  const events: Json[] = [];
  const stream = new ResponsesStream(meta, (event) => events.push(event));
  stream.start();
  for (const c of chunks) stream.chunk(c);
  const final = end(stream);
  return { events, final, types: events.map((e) => e.type) };
}

const realistic = [
  chunk({ role: 'assistant', content: null }),
  chunk({ reasoning_content: 'Two cities, ' }),
  chunk({ reasoning_content: 'two calls.' }),
  chunk({ content: 'Let me ' }),
  chunk({ content: 'check.' }),
  chunk({ tool_calls: [call(0, { name: 'weather', arguments: '' }, 'call_a')] }),
  chunk({ tool_calls: [call(0, { arguments: '{"city":' })] }),
  chunk({ tool_calls: [call(0, { arguments: '"Oslo"}' })] }),
  chunk({ tool_calls: [call(1, { name: 'weather', arguments: '{"city":"Rome"}' }, 'call_b')] }),
  chunk({}, 'tool_calls'),
  usageChunk,
];

describe('ResponsesStream', () => {
  it('turns text, reasoning and tool calls in pieces into the Responses event sequence', () => {
    const { events, final, types } = run(realistic);
    expect(types).toEqual([
      'response.created', 'response.in_progress',
      'response.output_item.added', 'response.content_part.added', 'response.reasoning_text.delta', 'response.reasoning_text.delta',
      'response.reasoning_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.content_part.added', 'response.output_text.delta', 'response.output_text.delta',
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done',
      'response.output_item.added', 'response.function_call_arguments.delta', 'response.function_call_arguments.delta',
      'response.output_item.added', 'response.function_call_arguments.delta',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.function_call_arguments.done', 'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));

    expect(events[0]!.response).toMatchObject({ id: 'resp_1', object: 'response', status: 'in_progress', output: [], usage: null, model: 'tiny' });
    const textDone = events.find((e) => e.type === 'response.output_text.done')!;
    expect(textDone).toMatchObject({ output_index: 1, content_index: 0, text: 'Let me check.', logprobs: [] });
    expect(events.find((e) => e.type === 'response.reasoning_text.done')).toMatchObject({ output_index: 0, text: 'Two cities, two calls.' });
    const argsDone = events.filter((e) => e.type === 'response.function_call_arguments.done');
    expect(argsDone.map((e) => [e.output_index, e.name, e.arguments])).toEqual([[2, 'weather', '{"city":"Oslo"}'], [3, 'weather', '{"city":"Rome"}']]);

    const output = final.output as Json[];
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    expect(output[1]).toEqual({ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Let me check.', annotations: [], logprobs: [] }] });
    expect(output[2]).toEqual({ id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', call_id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' });
    expect(output[3]).toMatchObject({ call_id: 'call_b', arguments: '{"city":"Rome"}' });
    expect(final).toMatchObject({ status: 'completed', incomplete_details: null, error: null, usage: { input_tokens: 20, output_tokens: 9, total_tokens: 29 } });
    expect(events.at(-1)!.response).toEqual(final);
  });

  it('keeps each item id the same from added through deltas to done', () => {
    const { events, final } = run(realistic);
    for (const [index, item] of (final.output as Json[]).entries()) {
      const about = events.filter((e) => e.output_index === index);
      const ids = about.map((e) => (e.item as Json | undefined)?.id ?? e.item_id);
      expect(new Set(ids)).toEqual(new Set([item.id]));
      expect(about[0]!.type).toBe('response.output_item.added');
      expect(about.at(-1)!.type).toBe('response.output_item.done');
    }
  });

  it('opens one function_call item per tool_calls index of a single chunk', () => {
    const { events, final } = run([chunk({ tool_calls: [call(0, { name: 'a', arguments: '{}' }, 'call_1'), call(1, { name: 'b', arguments: '{"x":1}' }, 'call_2')] }, 'tool_calls')]);
    const added = events.filter((e) => e.type === 'response.output_item.added').map((e) => e.item as Json);
    expect(added).toEqual([
      { id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'in_progress', call_id: 'call_1', name: 'a', arguments: '' },
      { id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'in_progress', call_id: 'call_2', name: 'b', arguments: '' },
    ]);
    expect((final.output as Json[]).map((item) => [item.call_id, item.arguments])).toEqual([['call_1', '{}'], ['call_2', '{"x":1}']]);
  });

  it('ends incomplete, with response.incomplete, when max_tokens cut the answer; usage is zeros without a usage chunk', () => {
    const { final, types } = run([chunk({ content: 'Hel' }), chunk({}, 'length')]);
    expect(types.at(-1)).toBe('response.incomplete');
    expect(final).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ type: 'message', status: 'incomplete' }] });
    expect(final.usage).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
  });

  it('closes a function call max_tokens cut in half incomplete, a whole one completed', () => {
    const { events, final } = run([chunk({ tool_calls: [call(0, { name: 'a', arguments: '{}' }, 'call_1'), call(1, { name: 'b', arguments: '{"x":' }, 'call_2')] }), chunk({}, 'length')]);
    const done = events.filter((e) => e.type === 'response.output_item.done').map((e) => (e.item as Json).status);
    expect(done).toEqual(['completed', 'incomplete']);
    expect(final).toMatchObject({ status: 'incomplete', output: [{ call_id: 'call_1', status: 'completed' }, { call_id: 'call_2', status: 'incomplete' }] });
  });

  it('fails with the error and what was produced so far, marked incomplete', () => {
    const { events, final, types } = run([chunk({ content: 'Half an ans' }), chunk({ tool_calls: [call(0, { name: 'f', arguments: '{"a' }, 'call_1')] })], (s) => s.fail({ code: 'dispatch.upstream_unreachable', message: 'the engine hung up' }));
    expect(types.at(-1)).toBe('response.failed');
    expect(final).toMatchObject({ status: 'failed', error: { code: 'dispatch.upstream_unreachable', message: 'the engine hung up' }, usage: null });
    expect(final.output).toEqual([
      expect.objectContaining({ type: 'message', status: 'completed', content: [expect.objectContaining({ text: 'Half an ans' })] }),
      expect.objectContaining({ type: 'function_call', status: 'incomplete', arguments: '{"a' }),
    ]);
    expect(events.at(-1)!.response).toEqual(final);
  });

  it('emits created and in_progress once, and nothing after the end', () => {
    const events: Json[] = [];
    const stream = new ResponsesStream(meta, (event) => events.push(event));
    stream.chunk(chunk({ content: 'a' }));
    stream.start();
    const final = stream.finish();
    const count = events.length;
    stream.chunk(chunk({ content: 'late' }));
    expect(stream.finish()).toBe(final);
    expect(stream.fail({ code: 'x', message: 'y' })).toBe(final);
    expect(events.length).toBe(count);
    expect(events.filter((e) => e.type === 'response.created')).toHaveLength(1);
  });

  it('carries logprobs on text deltas and into the final text', () => {
    const logprobs = { content: [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }] };
    const { events, final } = run([{ ...chunk({ content: 'Hi' }), choices: [{ index: 0, delta: { content: 'Hi' }, logprobs, finish_reason: null }] }, chunk({}, 'stop')]);
    const expected = [{ token: 'Hi', logprob: -0.1, bytes: [72, 105], top_logprobs: [] }];
    expect(events.find((e) => e.type === 'response.output_text.delta')!.logprobs).toEqual(expected);
    expect(((final.output as Json[])[0]!.content as Json[])[0]!.logprobs).toEqual(expected);
  });

  // The fields the Vercel AI SDK's OpenAI provider requires of each event it parses
  // (packages/openai/src/responses/openai-responses-api.ts, openaiResponsesChunkSchema):
  // it validates every chunk with zod, so a missing one breaks its stream.
  it('gives every field the Vercel AI SDK requires', () => {
    const usage = z.object({ input_tokens: z.number(), input_tokens_details: z.object({ cached_tokens: z.number().nullish() }).nullish(), output_tokens: z.number(), output_tokens_details: z.object({ reasoning_tokens: z.number().nullish() }).nullish() });
    const item = z.discriminatedUnion('type', [
      z.object({ type: z.literal('message'), id: z.string() }),
      z.object({ type: z.literal('reasoning'), id: z.string(), encrypted_content: z.string().nullish() }),
      z.object({ type: z.literal('function_call'), id: z.string(), call_id: z.string(), name: z.string(), arguments: z.string() }),
    ]);
    const schemas: Record<string, z.ZodType> = {
      'response.created': z.object({ response: z.object({ id: z.string(), created_at: z.number(), model: z.string(), service_tier: z.string().nullish() }) }),
      'response.output_item.added': z.object({ output_index: z.number(), item }),
      'response.output_item.done': z.object({ output_index: z.number(), item: z.union([item.options[0], item.options[1], item.options[2].extend({ status: z.literal('completed') })]) }),
      'response.output_text.delta': z.object({ item_id: z.string(), delta: z.string(), logprobs: z.array(z.object({ token: z.string(), logprob: z.number(), top_logprobs: z.array(z.object({ token: z.string(), logprob: z.number() })) })).nullish() }),
      'response.function_call_arguments.delta': z.object({ item_id: z.string(), output_index: z.number(), delta: z.string() }),
      'response.completed': z.object({ response: z.object({ incomplete_details: z.object({ reason: z.string() }).nullish(), usage }) }),
      'response.incomplete': z.object({ response: z.object({ incomplete_details: z.object({ reason: z.string() }).nullish(), usage }) }),
    };
    const { events } = run(realistic);
    const { events: cut } = run([chunk({ content: 'x' }), chunk({}, 'length')]);
    const checked = new Set<string>();
    for (const event of [...events, ...cut]) {
      const schema = schemas[event.type as string];
      if (!schema) continue;
      expect(schema.safeParse(event).error?.issues ?? [], String(event.type)).toEqual([]);
      checked.add(event.type as string);
    }
    expect([...checked].sort()).toEqual(Object.keys(schemas).sort());
  });
});
