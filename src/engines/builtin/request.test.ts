import { describe, expect, it } from 'vitest';
import { readChatRequest, readCompletionRequest, readSampling } from './request.js';

const messages = [{ role: 'user', content: 'hi' }];

describe('readSampling', () => {
  it("has llama-server's defaults", () => {
    expect(readSampling({})).toEqual({
      maxTokens: null, temperature: 0.8, topP: 0.95, topK: 40, minP: 0.05, seed: null, stop: [], n: 1, ignoreEos: false,
      repeatPenalty: 1, presencePenalty: 0, frequencyPenalty: 0,
    });
  });

  it('reads every supported field; max_completion_tokens wins over max_tokens; -1 means no limit', () => {
    const s = readSampling({ max_completion_tokens: 7, max_tokens: 9, temperature: 0, top_p: 0.5, seed: 42, stop: '.', n: 3, ignore_eos: true, presence_penalty: 0.5 });
    expect(s).toMatchObject({ maxTokens: 7, temperature: 0, topP: 0.5, seed: 42, stop: ['.'], n: 3, ignoreEos: true, presencePenalty: 0.5 });
    expect(readSampling({ max_tokens: -1 }).maxTokens).toBeNull();
    expect(readSampling({ seed: -1 }).seed).toBeNull();
    expect(readSampling({ stop: ['a', '', 'b'] }).stop).toEqual(['a', 'b']);
  });

  it('refuses bad values with a 400 naming the field', () => {
    const bad = (body: Record<string, unknown>, message: RegExp) => {
      try {
        readSampling(body);
      } catch (error) {
        expect(error).toMatchObject({ status: 400, code: 'request.invalid', type: 'invalid_request_error' });
        expect((error as Error).message).toMatch(message);
        return;
      }
      throw new Error(`accepted ${JSON.stringify(body)}`);
    };
    bad({ max_tokens: -5 }, /'max_tokens' must be between -1 and/);
    bad({ max_tokens: 1.5 }, /'max_tokens' must be an integer/);
    bad({ temperature: 'hot' }, /'temperature' must be a number/);
    bad({ top_p: 2 }, /'top_p' must be between 0 and 1/);
    bad({ n: 0 }, /'n' must be between 1 and 16/);
    bad({ stop: [1] }, /'stop' must be a string or a list of strings/);
  });
});

describe('readChatRequest', () => {
  it('maps roles (developer is system), joins text parts with newlines and reads stream options', () => {
    const request = readChatRequest({
      model: 'm', stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'developer', content: 'be brief' }, { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, { role: 'assistant', content: null }],
    });
    expect(request.messages).toEqual([{ role: 'system', content: 'be brief' }, { role: 'user', content: 'a\nb' }, { role: 'assistant', content: '' }]);
    expect(request).toMatchObject({ model: 'm', stream: true, includeUsage: true });
  });

  it("refuses what it cannot serve, in llama-server's words where it has them", () => {
    expect(() => readChatRequest({})).toThrow("'messages' is required");
    expect(() => readChatRequest({ messages: 'bad' })).toThrow("Expected 'messages' to be an array");
    expect(() => readChatRequest({ messages: [] })).toThrow(/must not be empty/);
    expect(() => readChatRequest({ messages: [{ role: 'tool', content: 'x' }] })).toThrow(/messages\[0\]\.role/);
    expect(() => readChatRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toThrow(/"image_url" part; the built-in engine reads only text parts/);
    expect(() => readChatRequest({ messages, stream: 1 })).toThrow(/'stream' must be a boolean/);
    expect(() => readChatRequest({ messages, stream_options: 3 })).toThrow(/'stream_options' must be an object/);
    expect(() => readChatRequest({ messages, tools: [{ type: 'function', function: { name: 'f' } }] })).toThrow(/'tools' is not supported by the built-in engine/);
    expect(() => readChatRequest({ messages, response_format: { type: 'json_object' } })).toThrow(/'response_format' "json_object" is not supported/);
    expect(readChatRequest({ messages, tools: [], response_format: { type: 'text' } }).messages).toHaveLength(1);
  });

  it('reads enable_thinking from chat_template_kwargs, else the top level; null when absent', () => {
    const messages = [{ role: 'user', content: 'x' }];
    expect(readChatRequest({ messages }).enableThinking).toBeNull();
    expect(readChatRequest({ messages, chat_template_kwargs: { enable_thinking: false } }).enableThinking).toBe(false);
    expect(readChatRequest({ messages, chat_template_kwargs: { other: 1 }, enable_thinking: true }).enableThinking).toBe(true);
    expect(readChatRequest({ messages, chat_template_kwargs: { enable_thinking: false }, enable_thinking: true }).enableThinking).toBe(false);
    expect(() => readChatRequest({ messages, chat_template_kwargs: 'no' })).toThrow(/'chat_template_kwargs' must be an object/);
    expect(() => readChatRequest({ messages, chat_template_kwargs: { enable_thinking: 'no' } })).toThrow(/'chat_template_kwargs.enable_thinking' must be a boolean/);
  });
});

describe('readCompletionRequest', () => {
  it('takes one prompt or a list', () => {
    expect(readCompletionRequest({ prompt: 'x' }).prompts).toEqual(['x']);
    expect(readCompletionRequest({ prompt: ['x', 'y'] }).prompts).toEqual(['x', 'y']);
    expect(() => readCompletionRequest({ prompt: [] })).toThrow(/'prompt' must be/);
    expect(() => readCompletionRequest({})).toThrow(/'prompt' must be/);
  });
});
