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
    expect(() => readChatRequest({ messages: [{ role: 'function', content: 'x' }] })).toThrow(/messages\[0\]\.role/);
    expect(() => readChatRequest({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] })).toThrow(/"image_url" part; the built-in engine reads only text parts/);
    expect(() => readChatRequest({ messages, stream: 1 })).toThrow(/'stream' must be a boolean/);
    expect(() => readChatRequest({ messages, stream_options: 3 })).toThrow(/'stream_options' must be an object/);
    expect(() => readChatRequest({ messages, logit_bias: { 12: 5 } })).toThrow(/'logit_bias' is not supported by the built-in engine/);
    expect(readChatRequest({ messages, logit_bias: {} }).messages).toHaveLength(1);
    expect(readChatRequest({ messages, tools: [], response_format: { type: 'text' } })).toMatchObject({ responseGrammar: null, tools: { functions: [], choice: 'none' } });
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

/** The 400 a body gets: its message and the path details.problems names. */
function refusal(read: () => unknown): { message: string; path: string | undefined } {
  try {
    read();
  } catch (error) {
    expect(error).toMatchObject({ status: 400, code: 'request.invalid' });
    const problems = (error as { details: { problems?: { path: string }[] } }).details.problems;
    return { message: (error as Error).message, path: problems?.[0]?.path };
  }
  throw new Error('accepted');
}

describe('messages with tool calls', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } };

  it('reads an assistant turn with tool_calls (content null) and the tool result that answers it', () => {
    const request = readChatRequest({ messages: [...messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_1', content: '{"temp":3}' }] });
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', content: '{"temp":3}', toolCallId: 'call_1' },
    ]);
  });

  it('a tool message must answer a call an earlier assistant message issued, else a 400 at its tool_call_id', () => {
    expect(refusal(() => readChatRequest({ messages: [...messages, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] }))).toEqual({
      message: "'messages[1].tool_call_id' is \"call_9\", which no earlier assistant message issued in its tool_calls", path: 'messages[1].tool_call_id',
    });
    // Issued later does not count: the result would come before its call.
    const late = [...messages, { role: 'tool', tool_call_id: 'call_1', content: 'x' }, { role: 'assistant', tool_calls: [call] }];
    expect(refusal(() => readChatRequest({ messages: late })).path).toBe('messages[1].tool_call_id');
    expect(refusal(() => readChatRequest({ messages: [...messages, { role: 'tool', content: 'x' }] })).path).toBe('messages[1].tool_call_id');
    expect(refusal(() => readChatRequest({ messages: [{ role: 'assistant', tool_calls: [{ ...call, function: { arguments: '{}' } }] }] })).path).toBe('messages[0].tool_calls[0].function.name');
    expect(refusal(() => readChatRequest({ messages: [{ role: 'assistant', tool_calls: [{ ...call, function: { name: 'f', arguments: {} } }] }] })).path).toBe('messages[0].tool_calls[0].function.arguments');
  });
});

describe('logprobs', () => {
  it('chat: logprobs is a boolean, top_logprobs 0-20 and only with logprobs', () => {
    expect(readChatRequest({ messages }).logprobs).toBeNull();
    expect(readChatRequest({ messages, logprobs: false }).logprobs).toBeNull();
    expect(readChatRequest({ messages, logprobs: true }).logprobs).toBe(0);
    expect(readChatRequest({ messages, logprobs: true, top_logprobs: 5 }).logprobs).toBe(5);
    expect(refusal(() => readChatRequest({ messages, top_logprobs: 2 }))).toEqual({ message: "'top_logprobs' needs `logprobs: true`", path: 'top_logprobs' });
    expect(() => readChatRequest({ messages, logprobs: true, top_logprobs: 21 })).toThrow(/'top_logprobs' must be between 0 and 20/);
    expect(refusal(() => readChatRequest({ messages, logprobs: 3 })).path).toBe('logprobs');
  });

  it('completions: the legacy integer 0-5; echo, best_of and suffix are refused, not ignored', () => {
    expect(readCompletionRequest({ prompt: 'x' }).logprobs).toBeNull();
    expect(readCompletionRequest({ prompt: 'x', logprobs: 2 }).logprobs).toBe(2);
    expect(() => readCompletionRequest({ prompt: 'x', logprobs: 6 })).toThrow(/'logprobs' must be between 0 and 5/);
    expect(() => readCompletionRequest({ prompt: 'x', logprobs: true })).toThrow(/'logprobs' must be an integer/);
    expect(refusal(() => readCompletionRequest({ prompt: 'x', echo: true })).path).toBe('echo');
    expect(refusal(() => readCompletionRequest({ prompt: 'x', best_of: 3 })).path).toBe('best_of');
    expect(refusal(() => readCompletionRequest({ prompt: 'x', suffix: 'end' })).path).toBe('suffix');
    expect(readCompletionRequest({ prompt: 'x', echo: false, best_of: 1, suffix: '' }).prompts).toEqual(['x']);
  });
});

describe('tools', () => {
  const weather = { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };
  const now = { type: 'function', function: { name: 'now' } };

  it('reads function tools; tool_choice defaults to auto with tools, none without; parallel_tool_calls to true', () => {
    const request = readChatRequest({ messages, tools: [weather, now] });
    expect(request.tools).toEqual({
      functions: [
        { name: 'get_weather', description: 'Weather of a city', parameters: weather.function.parameters, path: 'tools[0].function.parameters' },
        { name: 'now', description: null, parameters: { type: 'object', properties: {}, additionalProperties: false }, path: 'tools[1].function.parameters' },
      ],
      choice: 'auto', parallel: true,
    });
    expect(readChatRequest({ messages }).tools).toEqual({ functions: [], choice: 'none', parallel: true });
    expect(readChatRequest({ messages, tools: [weather], tool_choice: 'required', parallel_tool_calls: false }).tools).toMatchObject({ choice: 'required', parallel: false });
    expect(readChatRequest({ messages, tools: [weather, now], tool_choice: { type: 'function', function: { name: 'now' } } }).tools.choice).toEqual({ name: 'now' });
  });

  it('a tool without a name, a bad name, a second tool of the same name: a 400 at the name', () => {
    expect(refusal(() => readChatRequest({ messages, tools: [weather, { type: 'function', function: { parameters: {} } }] }))).toEqual({ message: "'tools[1].function.name' is required", path: 'tools[1].function.name' });
    expect(refusal(() => readChatRequest({ messages, tools: [{ type: 'function', function: { name: 'get weather' } }] })).path).toBe('tools[0].function.name');
    expect(refusal(() => readChatRequest({ messages, tools: [now, now] })).message).toMatch(/'tools\[1\]\.function\.name' "now" is declared by an earlier tool/);
    expect(refusal(() => readChatRequest({ messages, tools: [{ type: 'retrieval' }] })).path).toBe('tools[0].type');
    expect(refusal(() => readChatRequest({ messages, tools: 'all' })).path).toBe('tools');
  });

  it('tool_choice must be one of the four forms and name a declared tool', () => {
    expect(refusal(() => readChatRequest({ messages, tools: [weather], tool_choice: { type: 'function', function: { name: 'nope' } } }))).toEqual({
      message: "'tool_choice.function.name' is \"nope\", which no tool declares (declared: get_weather)", path: 'tool_choice.function.name',
    });
    expect(refusal(() => readChatRequest({ messages, tool_choice: 'required' })).path).toBe('tool_choice');
    expect(refusal(() => readChatRequest({ messages, tools: [weather], tool_choice: 'any' })).path).toBe('tool_choice');
    expect(refusal(() => readChatRequest({ messages, tools: [weather], parallel_tool_calls: 'yes' })).path).toBe('parallel_tool_calls');
    expect(refusal(() => readChatRequest({ messages, functions: [weather.function] })).message).toMatch(/'functions' is OpenAI's deprecated form/);
  });

  it('a parameters schema the grammar cannot honour is a 400 at its path, whichever function it is in', () => {
    const odd = { type: 'function', function: { name: 'odd', parameters: { type: 'object', properties: { n: { type: 'integer', multipleOf: 2 } } } } };
    expect(refusal(() => readChatRequest({ messages, tools: [weather, odd], tool_choice: { type: 'function', function: { name: 'get_weather' } } }))).toMatchObject({
      path: 'tools[1].function.parameters.properties.n.multipleOf', message: expect.stringMatching(/^'tools\[1\]\.function\.parameters\.properties\.n\.multipleOf' is not supported/),
    });
  });
});

describe('response_format', () => {
  const schema = { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] };

  it('text is no grammar; json_object and json_schema are grammars', () => {
    expect(readChatRequest({ messages, response_format: { type: 'text' } }).responseGrammar).toBeNull();
    expect(readChatRequest({ messages, response_format: { type: 'json_object' } }).responseGrammar).toMatch(/^root ::= /);
    const strict = readChatRequest({ messages, response_format: { type: 'json_schema', json_schema: { name: 'person', schema, strict: true } } }).responseGrammar;
    expect(strict).toMatch(/age/);
    expect(readChatRequest({ messages, response_format: { type: 'json_schema', json_schema: { name: 'person', schema } } }).responseGrammar).toBe(strict);
  });

  it('an unknown type, a missing json_schema, a schema keyword the grammar cannot honour: a 400 naming the path', () => {
    expect(refusal(() => readChatRequest({ messages, response_format: { type: 'yaml' } })).path).toBe('response_format.type');
    expect(refusal(() => readChatRequest({ messages, response_format: { type: 'json_schema' } })).path).toBe('response_format.json_schema');
    expect(refusal(() => readChatRequest({ messages, response_format: { type: 'json_schema', json_schema: { name: 'has space', schema } } })).path).toBe('response_format.json_schema.name');
    const bad = { ...schema, properties: { age: { type: 'integer', multipleOf: 5 } } };
    expect(refusal(() => readChatRequest({ messages, response_format: { type: 'json_schema', json_schema: { name: 'p', schema: bad } } }))).toMatchObject({
      path: 'response_format.json_schema.schema.properties.age.multipleOf',
    });
    expect(refusal(() => readChatRequest({ messages, response_format: { type: 'json_schema', json_schema: { name: 'p', schema: { type: 'integr' } } } })).path).toBe('response_format.json_schema.schema.type');
  });
});
