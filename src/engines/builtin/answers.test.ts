import { describe, expect, it } from 'vitest';
import { answerMeta, chatChunk, chatCompletion, chatUsageChunk, legacyLogprobs, SYSTEM_FINGERPRINT, textChunk, textCompletion, usage } from './answers.js';
import type { TokenLogprob } from './answer-types.js';

const meta = { id: 'chatcmpl-1', created: 1700000000, model: 'tiny' };

describe('answer bodies', () => {
  it('ids are unique and prefixed, created is in seconds', () => {
    const a = answerMeta('chatcmpl', 'm', 1_700_000_000_999);
    expect(a).toMatchObject({ created: 1_700_000_000, model: 'm' });
    expect(a.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(answerMeta('cmpl', 'm').id).toMatch(/^cmpl-/);
    expect(answerMeta('cmpl', 'm').id).not.toBe(answerMeta('cmpl', 'm').id);
  });

  it('a chat completion is shaped like OpenAI and llama-server', () => {
    expect(chatCompletion(meta, [{ index: 0, text: 'hello', finishReason: 'stop' }], usage(3, 1))).toEqual({
      id: 'chatcmpl-1', object: 'chat.completion', created: 1700000000, model: 'tiny', system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
    });
  });

  it("a thinking model's thoughts go in reasoning_content, only when there were some", () => {
    const answer = chatCompletion(meta, [{ index: 0, text: 'yes', reasoning: 'hmm', finishReason: 'stop' }, { index: 1, text: 'no', reasoning: '', finishReason: 'stop' }], usage(1, 2));
    expect(answer.choices.map((c) => c.message)).toEqual([{ role: 'assistant', content: 'yes', reasoning_content: 'hmm' }, { role: 'assistant', content: 'no' }]);
  });

  it('chat chunks: role delta, content delta, empty final delta with finish_reason, usage chunk without choices', () => {
    expect(chatChunk(meta, 0, { role: 'assistant', content: null }).choices).toEqual([{ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null }]);
    expect(chatChunk(meta, 1, { content: 'x' })).toMatchObject({ object: 'chat.completion.chunk', choices: [{ index: 1, delta: { content: 'x' }, finish_reason: null }] });
    expect(chatChunk(meta, 0, {}, 'length').choices).toEqual([{ index: 0, delta: {}, finish_reason: 'length' }]);
    expect(chatUsageChunk(meta, usage(1, 2))).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
  });

  it('text completions and their chunks; usage only on the chunk that gets it', () => {
    expect(textCompletion(meta, [{ index: 0, text: ' a', finishReason: 'length' }], usage(2, 1)).choices).toEqual([{ index: 0, text: ' a', logprobs: null, finish_reason: 'length' }]);
    expect(textChunk(meta, 0, ' a')).not.toHaveProperty('usage');
    expect(textChunk(meta, 0, '', 'stop', usage(2, 1))).toMatchObject({ object: 'text_completion', choices: [{ text: '', finish_reason: 'stop' }], usage: { prompt_tokens: 2 } });
  });

  const hello: TokenLogprob = { token: 'Hel', logprob: -0.5, bytes: [72, 101, 108], top_logprobs: [{ token: 'Hel', logprob: -0.5, bytes: [72, 101, 108] }, { token: 'Hi', logprob: -1.5, bytes: [72, 105] }] };
  const lo: TokenLogprob = { token: 'lo', logprob: -0.1, bytes: [108, 111], top_logprobs: [] };

  it("tool calls: content null, OpenAI's tool_calls, finish_reason tool_calls; text written before the calls stays", () => {
    const toolCalls = [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }];
    const answer = chatCompletion(meta, [{ index: 0, text: '', finishReason: 'tool_calls', toolCalls }, { index: 1, text: 'Looking.', finishReason: 'tool_calls', toolCalls }], usage(5, 9));
    expect(answer.choices[0]).toEqual({
      index: 0, finish_reason: 'tool_calls',
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
    });
    expect(answer.choices[1]!.message.content).toBe('Looking.');
  });

  it('chat logprobs: present only when asked, in OpenAI\'s shape, on answers and chunks', () => {
    const answer = chatCompletion(meta, [{ index: 0, text: 'Hello', finishReason: 'stop', logprobs: [hello, lo] }], usage(1, 2));
    expect(answer.choices[0]).toMatchObject({ logprobs: { content: [hello, lo], refusal: null } });
    expect(chatCompletion(meta, [{ index: 0, text: 'x', finishReason: 'stop' }], usage(1, 1)).choices[0]).not.toHaveProperty('logprobs');
    expect(chatChunk(meta, 0, { content: 'Hel' }, null, [hello]).choices[0]).toEqual({ index: 0, delta: { content: 'Hel' }, logprobs: { content: [hello], refusal: null }, finish_reason: null });
    expect(chatChunk(meta, 0, { content: 'Hel' }).choices[0]).not.toHaveProperty('logprobs');
  });

  it('tool call deltas: the first names the call, later ones carry argument pieces', () => {
    const first = chatChunk(meta, 0, { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] });
    expect(first.choices[0]!.delta).toEqual({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] });
    expect(chatChunk(meta, 0, {}, 'tool_calls').choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('legacy completion logprobs: parallel lists, alternatives as maps, offsets into prompt + completion', () => {
    expect(legacyLogprobs([hello, lo], 7)).toEqual({
      tokens: ['Hel', 'lo'], token_logprobs: [-0.5, -0.1], top_logprobs: [{ Hel: -0.5, Hi: -1.5 }, {}], text_offset: [7, 10],
    });
    expect(textCompletion(meta, [{ index: 0, text: 'Hello', finishReason: 'stop', logprobs: [hello, lo], textOffset: 3 }], usage(1, 2)).choices[0]!.logprobs).toMatchObject({ text_offset: [3, 6] });
    expect(textChunk(meta, 0, 'lo', null, undefined, { entries: [lo], offset: 6 }).choices[0]!.logprobs).toEqual({ tokens: ['lo'], token_logprobs: [-0.1], top_logprobs: [{}], text_offset: [6] });
  });
});

