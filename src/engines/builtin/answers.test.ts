import { describe, expect, it } from 'vitest';
import { answerMeta, chatChunk, chatCompletion, chatUsageChunk, SYSTEM_FINGERPRINT, textChunk, textCompletion, usage } from './answers.js';

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
});
