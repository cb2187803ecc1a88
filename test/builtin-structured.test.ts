// Structured output, tool calls and logprobs on the built-in engine, through the real
// gateway, driven by the official `openai` client (its own stream helpers reassemble the
// calls). The tiny model's weights are random: what it says is nonsense, but the grammar
// makes every JSON answer parse and validate (checked with ajv) whatever it says; parallel
// calls that max_tokens cuts answer only the whole ones (chat, streamed or not, and Responses).
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway, type TempHome } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { sseData } from './helpers/sse.js';

let home: TempHome;
let gw: Gateway;
let client: OpenAI;

beforeAll(async () => {
  home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 2048 }]);
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const ajv = new Ajv({ strict: false });
const valid = (schema: object, value: unknown) => {
  const ok = ajv.validate(schema, value);
  return ok ? 'valid' : ajv.errorsText();
};
const messages = [{ role: 'user' as const, content: 'What is the weather in Oslo?' }];
const person = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 30 }, age: { type: 'integer', minimum: 0, maximum: 120 }, pets: { type: 'array', items: { enum: ['cat', 'dog'] }, maxItems: 3 } },
  required: ['name', 'age', 'pets'], additionalProperties: false,
};
const weather = { type: 'object', properties: { city: { type: 'string', maxLength: 24 }, unit: { enum: ['c', 'f'] } }, required: ['city', 'unit'], additionalProperties: false };
const tools: OpenAI.ChatCompletionFunctionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: weather } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string', maxLength: 10 } }, required: ['zone'] } } },
];
const paramsOf = (name: string) => tools.find((t) => t.function.name === name)!.function.parameters!;

describe('response_format on the built-in engine', () => {
  it('json_schema: the answer parses and validates, seed after seed; the same seed gives the same answer', async () => {
    const answers = [];
    for (const seed of [1, 2, 3]) {
      const answer = await client.chat.completions.create({ model: 'chat', messages, seed, response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person, strict: true } } });
      expect(answer.choices[0]!.finish_reason).toBe('stop');
      expect(valid(person, JSON.parse(answer.choices[0]!.message.content!))).toBe('valid');
      answers.push(answer.choices[0]!.message.content);
    }
    const again = await client.chat.completions.create({ model: 'chat', messages, seed: 1, response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person, strict: true } } });
    expect(again.choices[0]!.message.content).toBe(answers[0]);
  }, 60_000);

  it('json_schema with n choices, streamed: each choice parses and validates', async () => {
    const stream = await client.chat.completions.create({ model: 'chat', messages, n: 2, seed: 4, stream: true, response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person } } });
    const texts = ['', ''];
    const finish: (string | null)[] = [null, null];
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        texts[choice.index] += choice.delta.content ?? '';
        finish[choice.index] ??= choice.finish_reason;
      }
    }
    expect(finish).toEqual(['stop', 'stop']);
    for (const text of texts) expect(valid(person, JSON.parse(text))).toBe('valid');
    expect(texts[1]).not.toBe(texts[0]); // seed + index per choice
  }, 60_000);

  it('json_object: a JSON object, unless max_tokens cuts it (its strings have no length limit)', async () => {
    const answers = await Promise.all([1, 2, 3].map((seed) => client.chat.completions.create({ model: 'chat', messages, seed, max_tokens: 300, response_format: { type: 'json_object' } })));
    const finished = answers.map((a) => a.choices[0]!).filter((c) => c.finish_reason === 'stop');
    expect(finished.length).toBeGreaterThan(0);
    for (const choice of finished) expect(JSON.parse(choice.message.content!)).toEqual(expect.any(Object));
    for (const choice of answers.map((a) => a.choices[0]!)) expect(choice.message.content!.startsWith('{')).toBe(true);
  }, 60_000);
});

describe('tools on the built-in engine', () => {
  it('tool_choice required: tool calls whose arguments validate, content null, finish_reason tool_calls', async () => {
    for (const seed of [1, 2, 3]) {
      const answer = await client.chat.completions.create({ model: 'chat', messages, tools, tool_choice: 'required', parallel_tool_calls: false, seed });
      const choice = answer.choices[0]!;
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      expect(choice.message.tool_calls).toHaveLength(1);
      const call = choice.message.tool_calls![0]!;
      expect(call).toMatchObject({ id: expect.stringMatching(/^call_/), type: 'function' });
      if (call.type !== 'function') throw new Error('a function call');
      expect(valid(paramsOf(call.function.name), JSON.parse(call.function.arguments))).toBe('valid');
    }
  }, 60_000);

  it('a named function, streamed and reassembled by the client\'s own helpers, is the same call as unstreamed', async () => {
    const request = { model: 'chat', messages, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false, seed: 9 } as const;
    const plain = await client.chat.completions.create(request);
    const pieces: string[] = [];
    const stream = client.chat.completions.stream(request);
    stream.on('tool_calls.function.arguments.delta', (event) => pieces.push(event.arguments_delta));
    const streamed = await stream.finalChatCompletion();
    const [a, b] = [plain.choices[0]!, streamed.choices[0]!];
    expect(b.finish_reason).toBe('tool_calls');
    expect(b.message.tool_calls).toHaveLength(1);
    const call = b.message.tool_calls![0]!;
    if (call.type !== 'function' || a.message.tool_calls![0]!.type !== 'function') throw new Error('function calls');
    expect(call.function.name).toBe('get_weather');
    expect(call.function.arguments).toBe(a.message.tool_calls![0]!.function.arguments); // same seed, same call
    expect(valid(weather, JSON.parse(call.function.arguments))).toBe('valid');
    expect(pieces.length).toBeGreaterThan(3); // arguments arrive in pieces
    expect(pieces.join('')).toBe(call.function.arguments);
  }, 60_000);

  it("the stream in OpenAI's shape: role, the call named with empty arguments, argument pieces, finish_reason tool_calls, [DONE]", async () => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages, tools, tool_choice: 'required', parallel_tool_calls: false, stream: true, seed: 2 }),
    });
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const deltas = events.slice(0, -1).map((e) => JSON.parse(e).choices[0]);
    expect(deltas[0]).toEqual({ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null });
    expect(deltas[1].delta.tool_calls).toEqual([{ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: expect.any(String), arguments: '' } }]);
    const pieces = deltas.slice(2, -1);
    for (const d of pieces) expect(d.delta).toEqual({ tool_calls: [{ index: 0, function: { arguments: expect.any(String) } }] });
    expect(deltas.at(-1)).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    const args = pieces.map((d) => d.delta.tool_calls[0].function.arguments).join('');
    expect(valid(paramsOf(deltas[1].delta.tool_calls[0].function.name), JSON.parse(args))).toBe('valid');
  }, 60_000);

  it('a conversation with tool calls and their results goes on; auto lets the model choose', async () => {
    const first = await client.chat.completions.create({ model: 'chat', messages, tools, tool_choice: 'required', parallel_tool_calls: false, seed: 5 });
    const call = first.choices[0]!.message.tool_calls![0]!;
    const history: OpenAI.ChatCompletionMessageParam[] = [...messages, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"temperature": 3}' }];
    const next = await client.chat.completions.create({ model: 'chat', messages: history, tools, max_tokens: 40, seed: 5 });
    const choice = next.choices[0]!;
    // The tiny model's choice is its own; either way the answer is well formed.
    if (choice.finish_reason === 'tool_calls') {
      for (const c of choice.message.tool_calls!) if (c.type === 'function') expect(valid(paramsOf(c.function.name), JSON.parse(c.function.arguments))).toBe('valid');
    } else {
      expect(choice.message.content).toMatch(/\S/);
      expect(choice.message.tool_calls).toBeUndefined();
    }
    expect(next.usage!.prompt_tokens).toBeGreaterThan(first.usage!.prompt_tokens);
  }, 60_000);
});

describe('parallel tool calls that max_tokens cuts', () => {
  // Greedy, so the same calls each time: a whole first call, then max_tokens runs out inside
  // the second (the engine keeps going while what is left would hold one more call).
  const cut = { model: 'chat', messages, tools, tool_choice: 'required', parallel_tool_calls: true, temperature: 0, max_tokens: 80 } as const;
  const wholeCalls = (calls: Array<{ name: string; arguments: string }>) => {
    for (const call of calls) expect(valid(paramsOf(call.name), JSON.parse(call.arguments)), call.arguments).toBe('valid');
  };

  it('answer only whole calls, with finish_reason length, streamed or not', async () => {
    const plain = await client.chat.completions.create(cut);
    const choice = plain.choices[0]!;
    expect(choice.finish_reason).toBe('length');
    expect(plain.usage!.completion_tokens).toBe(80);
    const calls = choice.message.tool_calls!.map((c) => (c as OpenAI.ChatCompletionMessageFunctionToolCall).function);
    expect(calls.length).toBeGreaterThan(0);
    wholeCalls(calls);

    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...cut, stream: true }) });
    const deltas = sseData(await response.text()).slice(0, -1).map((e) => JSON.parse(e).choices[0]);
    const streamed: Array<{ name: string; arguments: string }> = [];
    for (const d of deltas) for (const t of d.delta.tool_calls ?? []) {
      streamed[t.index] ??= { name: '', arguments: '' };
      streamed[t.index]!.name += t.function.name ?? '';
      streamed[t.index]!.arguments += t.function.arguments ?? '';
    }
    expect(streamed).toEqual(calls.map(({ name, arguments: args }) => ({ name, arguments: args })));
    expect(deltas.at(-1)).toEqual({ index: 0, delta: {}, finish_reason: 'length' });
  }, 60_000);

  it('/v1/responses: an incomplete response whose function calls are all whole, streamed or not', async () => {
    const body = { model: 'chat', input: messages[0]!.content, tools: tools.map((t) => ({ type: 'function', name: t.function.name, parameters: t.function.parameters })), tool_choice: 'required', temperature: 0, max_output_tokens: 80 };
    const plain = await api(gw.url, '/v1/responses', { method: 'POST', body });
    expect(plain.json).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    const items = plain.json.output as Array<{ type: string; status: string; name: string; arguments: string }>;
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(item).toMatchObject({ type: 'function_call', status: 'completed' });
    wholeCalls(items);
    const streamed = await api(gw.url, '/v1/responses', { method: 'POST', body: { ...body, stream: true } });
    const events = streamed.text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
    const final = events.at(-1).response;
    expect(final).toMatchObject({ status: 'incomplete' });
    expect(final.output.map((i: { name: string; arguments: string; status: string }) => [i.name, i.arguments, i.status])).toEqual(items.map((i) => [i.name, i.arguments, 'completed']));
  }, 60_000);
});

describe('logprobs on the built-in engine', () => {
  it('chat: every token with its logprob, bytes and top_logprobs; repeatable with a seed; also with stop', async () => {
    const request = { model: 'chat', messages, max_tokens: 12, seed: 7, logprobs: true, top_logprobs: 3 } as const;
    const answer = await client.chat.completions.create(request);
    const { content } = answer.choices[0]!.logprobs!;
    expect(content!.length).toBe(answer.usage!.completion_tokens);
    for (const entry of content!) {
      expect(entry).toMatchObject({ token: expect.any(String), logprob: expect.any(Number), bytes: expect.any(Array) });
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.top_logprobs.length).toBeGreaterThan(0);
      expect(entry.top_logprobs.length).toBeLessThanOrEqual(3);
    }
    expect(content!.map((e) => e.token).join('').trimStart()).toBe(answer.choices[0]!.message.content);
    const again = await client.chat.completions.create(request);
    expect(again.choices[0]!.logprobs).toEqual(answer.choices[0]!.logprobs);
    // Streamed, each chunk carries the logprobs of its tokens: the same ones, in order.
    const streamed = [];
    for await (const chunk of await client.chat.completions.create({ ...request, stream: true })) streamed.push(...(chunk.choices[0]?.logprobs?.content ?? []));
    expect(streamed).toEqual(content);
    const text = answer.choices[0]!.message.content!;
    const cut = text.indexOf(' ', 3);
    if (cut > 0) {
      const stopped = await client.chat.completions.create({ ...request, stop: [text.slice(cut, cut + 2)] });
      expect(stopped.choices[0]!.message.content).toBe(text.slice(0, cut));
      expect(stopped.choices[0]!.finish_reason).toBe('stop');
    }
  }, 60_000);

  it('completions: the legacy shape, streamed and not', async () => {
    const request = { model: 'chat', prompt: 'Once upon a time', max_tokens: 6, seed: 3, logprobs: 2, ignore_eos: true } as const;
    const answer = await client.completions.create(request);
    const logprobs = answer.choices[0]!.logprobs!;
    expect(logprobs.tokens).toHaveLength(6);
    expect(logprobs.token_logprobs).toHaveLength(6);
    expect(logprobs.tokens!.join('')).toBe(answer.choices[0]!.text);
    expect(logprobs.text_offset![0]).toBe('Once upon a time'.length);
    for (const top of logprobs.top_logprobs!) expect(Object.keys(top).length).toBeGreaterThan(0);
    const stream = await client.completions.create({ ...request, stream: true });
    const tokens: string[] = [];
    for await (const chunk of stream) tokens.push(...(chunk.choices[0]?.logprobs?.tokens ?? []));
    expect(tokens).toEqual(logprobs.tokens);
  }, 60_000);
});

describe('bad input is a 400 naming the path of the problem', () => {
  const refused = async (body: Record<string, unknown>) => {
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages, ...body } });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.json.error.code).toBe('request.invalid');
    return { message: answer.json.error.message as string, path: answer.json.error.details.problems?.[0]?.path as string };
  };

  it('an invalid schema, a tool without a name, tool_choice naming an unknown function, a tool message for an unknown call id', async () => {
    const badSchema = { ...person, properties: { ...person.properties, age: { type: 'integer', multipleOf: 2 } } };
    expect(await refused({ response_format: { type: 'json_schema', json_schema: { name: 'p', schema: badSchema } } })).toMatchObject({ path: 'response_format.json_schema.schema.properties.age.multipleOf' });
    expect(await refused({ tools: [{ type: 'function', function: { parameters: weather } }] })).toEqual({ message: "'tools[0].function.name' is required", path: 'tools[0].function.name' });
    expect(await refused({ tools, tool_choice: { type: 'function', function: { name: 'get_news' } } })).toMatchObject({ path: 'tool_choice.function.name', message: expect.stringContaining('"get_news"') });
    expect(await refused({ messages: [...messages, { role: 'tool', tool_call_id: 'call_x', content: '1' }] })).toMatchObject({ path: 'messages[1].tool_call_id' });
    expect(await refused({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'strin' } } } } }] })).toMatchObject({ path: 'tools[0].function.parameters.properties.a.type' });
    expect(await refused({ top_logprobs: 2 })).toMatchObject({ path: 'top_logprobs' });
    // Streamed requests fail before their first event, with the same envelope.
    expect(await refused({ stream: true, tools, tool_choice: 'anything' })).toMatchObject({ path: 'tool_choice' });
    const after = await client.chat.completions.create({ model: 'chat', messages, max_tokens: 2 });
    expect(after.choices[0]!.message.content).toMatch(/\S/);
  }, 60_000);
});
