import { describe, expect, it } from 'vitest';
import { responseFromChat } from './answer.js';
import type { ResponseMeta } from './types.js';

const meta: ResponseMeta = { id: 'resp_1', createdAt: 1_700_000_000, model: 'tiny', echo: { instructions: null, temperature: 1, tools: [] } };
const usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, prompt_tokens_details: { cached_tokens: 4 }, completion_tokens_details: { reasoning_tokens: 3 } };
const chat = (message: Record<string, unknown>, finish = 'stop', extra: Record<string, unknown> = {}) =>
  ({ id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'tiny', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish, ...extra }], usage });

describe('responseFromChat', () => {
  it('gives the top level OpenAI gives, the echo fields included, and no output_text', () => {
    const response = responseFromChat(meta, chat({ content: 'Hello.' }));
    expect(response).toEqual({
      id: 'resp_1',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      instructions: null,
      temperature: 1,
      tools: [],
      model: 'tiny',
      output: [{ id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello.', annotations: [], logprobs: [] }] }],
      usage: { input_tokens: 11, input_tokens_details: { cached_tokens: 4 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 18 },
    });
    expect(response).not.toHaveProperty('output_text');
  });

  it('orders reasoning, then the message, then one function_call per tool call', () => {
    const response = responseFromChat(meta, chat({
      reasoning_content: 'Two cities: two calls.',
      content: 'Checking.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        { id: 'call_b', type: 'function', function: { name: 'weather', arguments: { city: 'Rome' } } },
        { type: 'function', function: { name: 'clock', arguments: '' } },
      ],
    }, 'tool_calls'));
    const output = response.output as Record<string, unknown>[];
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call', 'function_call']);
    expect(output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Two cities: two calls.' }] });
    expect(output[2]).toEqual({ id: expect.stringMatching(/^fc_/), type: 'function_call', status: 'completed', call_id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' });
    expect(output[3]).toMatchObject({ call_id: 'call_b', arguments: '{"city":"Rome"}' });
    expect(output[4]).toMatchObject({ call_id: expect.stringMatching(/^call_/), name: 'clock', arguments: '{}' });
    expect(response.status).toBe('completed');
  });

  it('gives only the function call when the message had no text', () => {
    const response = responseFromChat(meta, chat({ content: null, tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] }, 'tool_calls'));
    expect((response.output as { type: string }[]).map((item) => item.type)).toEqual(['function_call']);
  });

  it('is incomplete, and so is its message, when max_tokens cut the answer', () => {
    const response = responseFromChat(meta, chat({ content: 'Hel' }, 'length'));
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ type: 'message', status: 'incomplete' }] });
  });

  it('marks a function call max_tokens cut in half incomplete, and keeps a whole one completed', () => {
    const response = responseFromChat(meta, chat({ content: null, tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'ping', arguments: '{}' } },
      { id: 'call_b', type: 'function', function: { name: 'ping', arguments: '{"n":' } },
    ] }, 'length'));
    expect(response).toMatchObject({ status: 'incomplete', output: [{ call_id: 'call_a', status: 'completed' }, { call_id: 'call_b', status: 'incomplete' }] });
  });

  it('carries logprobs into output_text', () => {
    const logprobs = { content: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105] }, { token: 'Yo', logprob: -1.2, bytes: [89, 111] }] }] };
    const response = responseFromChat(meta, chat({ content: 'Hi' }, 'stop', { logprobs }));
    expect((response.output as { content: unknown[] }[])[0]!.content[0]).toMatchObject({ logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105], top_logprobs: [{ token: 'Hi', logprob: -0.5, bytes: [72, 105] }, { token: 'Yo', logprob: -1.2, bytes: [89, 111] }] }] });
  });

  it('counts usage as zeros when the engine sent none, and reads vLLM-style reasoning', () => {
    const response = responseFromChat(meta, { choices: [{ index: 0, message: { role: 'assistant', reasoning: 'hm', content: 'ok' }, finish_reason: 'stop' }] });
    expect(response.usage).toEqual({ input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 });
    expect((response.output as { type: string }[]).map((item) => item.type)).toEqual(['reasoning', 'message']);
  });
});
