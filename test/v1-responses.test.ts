// /v1/responses on the built-in engine, through the real gateway, driven by the official
// `openai` client: text, instructions, a function tool and its output over two turns,
// text.format json_schema, the event stream as the client's own responses.stream() reads
// it, previous_response_id, retrieve, input_items, delete, store: false, and bad input.
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';

let gw: Gateway;
let client: OpenAI;

beforeAll(async () => {
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 2048 }]);
  home.write('svc.toml', '[api]\nmax_body_mb = 1\n');
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything', maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const post = (body: unknown) => api(gw.url, '/v1/responses', { method: 'POST', body });
const problems = (json: unknown) => (json as { error: { details: { problems?: Array<{ path: string }> } } }).error.details.problems?.map((p) => p.path);

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  strict: true,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1, maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
    required: ['city', 'days'],
    additionalProperties: false,
  },
};

describe('responses.create on the built-in engine', () => {
  it('answers text as a Response object with a message item and usage', async () => {
    const response = await client.responses.create({ model: 'chat', input: 'hello there', max_output_tokens: 12 });
    expect(response.id).toMatch(/^resp_/);
    expect(response.object).toBe('response');
    expect(['completed', 'incomplete']).toContain(response.status);
    const message = response.output.find((item) => item.type === 'message');
    // A message the token limit cut is incomplete, like the response (OpenAI's shape).
    expect(message).toMatchObject({ type: 'message', role: 'assistant', status: response.status });
    expect(response.output_text).toMatch(/\S/);
    expect(response.usage!.input_tokens).toBeGreaterThan(3);
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.output_tokens).toBeLessThanOrEqual(12);
    expect(response.usage!.total_tokens).toBe(response.usage!.input_tokens + response.usage!.output_tokens);
    if (response.status === 'incomplete') expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  }, 60_000);

  it('puts instructions into the prompt (more input tokens for the same input)', async () => {
    const plain = await client.responses.create({ model: 'chat', input: 'hello there', max_output_tokens: 1 });
    const instructed = await client.responses.create({ model: 'chat', input: 'hello there', instructions: 'Answer like a pirate, in one short line.', max_output_tokens: 1 });
    expect(instructed.usage!.input_tokens).toBeGreaterThan(plain.usage!.input_tokens + 5);
    expect(instructed.instructions).toBe('Answer like a pirate, in one short line.');
  });

  it('answers text.format json_schema with JSON that validates', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 0, maximum: 120 } }, required: ['name', 'age'], additionalProperties: false };
    const response = await client.responses.create({ model: 'chat', input: 'a person', text: { format: { type: 'json_schema', name: 'person', schema, strict: true } }, max_output_tokens: 200, temperature: 1 });
    const value = JSON.parse(response.output_text);
    const validate = new Ajv().compile(schema);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(response.text?.format).toMatchObject({ type: 'json_schema', name: 'person' });
  });

  it('calls a function tool with arguments that validate, and continues with its output', async () => {
    const first = await client.responses.create({ model: 'chat', input: 'weather in Paris?', tools: [weather], tool_choice: 'required', parallel_tool_calls: false, max_output_tokens: 200 });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', call_id: expect.any(String), id: expect.stringMatching(/^fc_/) });
    if (call?.type !== 'function_call') throw new Error('no function call');
    const validate = new Ajv().compile(weather.parameters);
    expect(validate(JSON.parse(call.arguments)), call.arguments).toBe(true);

    const second = await client.responses.create({
      model: 'chat', previous_response_id: first.id, tools: [weather], max_output_tokens: 8,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temperature_c": 21}' }],
    });
    expect(second.previous_response_id).toBe(first.id);
    // The first turn (its input and its call) and the tool's output are in the second prompt.
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens + 10);
    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output']);
  }, 60_000);
});

describe('responses.stream on the built-in engine', () => {
  it('streams the Responses events in order, which the client assembles into the stored answer', async () => {
    const stream = client.responses.stream({ model: 'chat', input: 'tell me a story', max_output_tokens: 16 });
    const types: string[] = [];
    const numbers: number[] = [];
    let deltas = '';
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
    }
    const final = await stream.finalResponse();
    expect(numbers).toEqual(numbers.map((_, i) => i));
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types).toContain('response.output_text.delta');
    expect(['completed', 'incomplete']).toContain(final.status);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', `response.${final.status}`]);
    expect(final.output_text).toBe(deltas);
    expect(final.usage!.output_tokens).toBeGreaterThan(0);
    const stored = await client.responses.retrieve(final.id);
    expect(stored.output_text).toBe(final.output_text);
    expect(stored.output.map((item) => item.id)).toEqual(final.output.map((item) => item.id));
  }, 60_000);

  it('streams a function call as argument deltas that add up to valid arguments', async () => {
    const stream = client.responses.stream({ model: 'chat', input: 'weather?', tools: [weather], tool_choice: 'required', parallel_tool_calls: false, max_output_tokens: 200 });
    let args = '';
    for await (const event of stream) if (event.type === 'response.function_call_arguments.delta') args += event.delta;
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('no function call');
    expect(call.arguments).toBe(args);
    expect(new Ajv().compile(weather.parameters)(JSON.parse(args))).toBe(true);
  }, 60_000);
});

describe('/v1/responses as a /v1 route', () => {
  it("carries Server-Timing, answered and streamed, like chat", async () => {
    const answered = await post({ model: 'chat', input: 'hi', max_output_tokens: 2 });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('server-timing')).toMatch(/\bsvc;dur=[\d.]+/);
    const streamed = await post({ model: 'chat', input: 'hi', max_output_tokens: 2, stream: true });
    expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(streamed.headers.get('server-timing')).toMatch(/\bsvc;dur=[\d.]+/);
    expect(streamed.text).toMatch(/^event: response\.created\ndata: /);
  });
});

describe('stored responses', () => {
  it('continue over two turns with previous_response_id', async () => {
    const first = await client.responses.create({ model: 'chat', input: 'my name is Ada', max_output_tokens: 6 });
    const second = await client.responses.create({ model: 'chat', input: 'what is my name?', previous_response_id: first.id, max_output_tokens: 6 });
    const alone = await client.responses.create({ model: 'chat', input: 'what is my name?', max_output_tokens: 6 });
    expect(second.usage!.input_tokens).toBeGreaterThan(alone.usage!.input_tokens + first.usage!.output_tokens);
    const items = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'message', 'message']);
    expect(JSON.stringify(items.data[0])).toContain('my name is Ada');
  });

  it('are retrieved and deleted; a deleted or unknown id is a 404 in the envelope', async () => {
    const created = await client.responses.create({ model: 'chat', input: 'hi', max_output_tokens: 4 });
    const again = await client.responses.retrieve(created.id);
    expect(again.id).toBe(created.id);
    expect(again.output).toEqual(created.output);
    const deleted = await api(gw.url, `/v1/responses/${created.id}`, { method: 'DELETE' });
    expect(deleted.json).toEqual({ id: created.id, object: 'response.deleted', deleted: true });
    const gone = await api(gw.url, `/v1/responses/${created.id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ error: { code: 'response.not_found', details: { id: created.id } } });
    const next = await post({ model: 'chat', input: 'hi', previous_response_id: created.id });
    expect(next.status).toBe(404);
  });

  it('keeps nothing with store: false', async () => {
    const created = await client.responses.create({ model: 'chat', input: 'hi', max_output_tokens: 4, store: false });
    expect((created as unknown as { store: boolean }).store).toBe(false);
    expect((await api(gw.url, `/v1/responses/${created.id}`)).status).toBe(404);
  });

  it('keeps nothing when [dispatcher].responses_ttl_s is 0, and says so in the answer', async () => {
    const set = await api(gw.url, '/api/settings', { method: 'PUT', body: { dispatcher: { responses_ttl_s: 0 } } });
    expect(set.status).toBe(200);
    try {
      const created = await client.responses.create({ model: 'chat', input: 'hi', max_output_tokens: 4 });
      expect((created as unknown as { store: boolean }).store).toBe(false);
      expect((await api(gw.url, `/v1/responses/${created.id}`)).status).toBe(404);
    } finally {
      await api(gw.url, '/api/settings', { method: 'PUT', body: { dispatcher: { responses_ttl_s: 3600 } } });
    }
  });
});

describe('bad input to /v1/responses', () => {
  it('names the path of each problem', async () => {
    const cases: Array<[unknown, string]> = [
      [{ model: 'chat', input: 'x', tools: [{ type: 'function', parameters: {} }] }, 'tools[0].name'],
      [{ model: 'chat', input: 'x', tools: [weather], tool_choice: { type: 'function', name: 'nope' } }, 'tool_choice.name'],
      [{ model: 'chat', input: [{ type: 'function_call_output', call_id: 'call_unknown', output: 'x' }] }, 'input[0].call_id'],
      [{ model: 'chat', input: 'x', text: { format: { type: 'json_schema', name: 'bad', schema: 'not a schema' } } }, 'text.format.schema'],
    ];
    for (const [body, path] of cases) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: 'request.invalid' } });
      expect(problems(answer.json)).toContain(path);
    }
  });

  it('refuses a schema keyword the engine cannot enforce, naming it', async () => {
    const answer = await post({ model: 'chat', input: 'x', text: { format: { type: 'json_schema', name: 'n', schema: { type: 'integer', multipleOf: 2 } } } });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('multipleOf');
  });

  it('refuses a body over the limit with 413', async () => {
    const answer = await api(gw.url, '/v1/responses', { method: 'POST', headers: { 'content-type': 'application/json' }, raw: JSON.stringify({ model: 'chat', input: 'x'.repeat(2 * 1024 * 1024) }) });
    expect(answer.status).toBe(413);
    expect(answer.json).toMatchObject({ error: { code: 'request.too_large' } });
  });
});
