// The built-in engine (provider builtin, node-llama-cpp) through the real gateway, on the
// tiny model, driven by the official `openai` client and by raw HTTP where bytes matter.
// No llama-server is involved: these tests need nothing but `npm install`.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, runSvc, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';
import { sseData } from './helpers/sse.js';
import type { TempHome } from './helpers/gateway.js';

let home: TempHome;
let gw: Gateway;
let client: OpenAI;

beforeAll(async () => {
  home = await homeWithTinySlots([
    { name: 'chat', provider: 'builtin', contextSize: 1024 },
    { name: 'embed', provider: 'builtin', type: 'embedding' },
    { name: 'rerank', provider: 'builtin', type: 'reranking', model: 'tiny-rerank' },
    { name: 'broken', provider: 'builtin', extra: '[server]\nextra_args = "-fa on"' },
  ]);
  // No llama-server anywhere: PATH without it, and no SVC_LLAMA_SERVER.
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin' } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const slot = async (name: string) => (await api(gw.url, `/api/slots/${name}`)).json;
const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const hi = [{ role: 'user' as const, content: 'hello there' }];

describe('chat through the gateway to the built-in engine', () => {
  it('without streaming: starts the slot on demand and answers with usage', async () => {
    const answer = await client.chat.completions.create({ model: 'chat', messages: hi, max_tokens: 16 });
    expect(answer.object).toBe('chat.completion');
    expect(answer.id).toMatch(/^chatcmpl-/);
    expect(answer.model).toBe('tiny'); // the gateway sends the slot's model id; the engine echoes it
    expect(answer.choices).toHaveLength(1);
    expect(answer.choices[0]!.message).toMatchObject({ role: 'assistant', content: expect.stringMatching(/\S/) });
    expect(['stop', 'length']).toContain(answer.choices[0]!.finish_reason);
    expect(answer.usage!.prompt_tokens).toBeGreaterThan(5);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
    expect(answer.usage!.completion_tokens).toBeLessThanOrEqual(16);
    expect(answer.usage!.total_tokens).toBe(answer.usage!.prompt_tokens + answer.usage!.completion_tokens);
    const view = await slot('chat');
    expect(view).toMatchObject({ state: 'ready', provider: 'builtin' });
    expect(JSON.stringify(view)).toContain('engines/builtin/main.js');
  }, 60_000);

  it('streaming, event by event: role delta, content deltas, an empty final delta with finish_reason, [DONE]', async () => {
    const response = await post('/v1/chat/completions', { model: 'chat', messages: hi, max_tokens: 12, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: chunks[0].id, object: 'chat.completion.chunk', created: chunks[0].created, model: 'tiny' });
      expect(chunk.choices).toHaveLength(1);
      expect(chunk.choices[0].index).toBe(0);
    }
    expect(chunks[0].choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: null }, finish_reason: null });
    const middle = chunks.slice(1, -1);
    expect(middle.length).toBeGreaterThan(0);
    for (const chunk of middle) {
      expect(Object.keys(chunk.choices[0].delta)).toEqual(['content']);
      expect(chunk.choices[0].delta.content).toMatch(/./);
      expect(chunk.choices[0].finish_reason).toBeNull();
    }
    expect(chunks.at(-1).choices[0].delta).toEqual({});
    expect(['stop', 'length']).toContain(chunks.at(-1).choices[0].finish_reason);
  }, 60_000);

  it('streaming with the openai client, and stream_options.include_usage adds a usage chunk', async () => {
    const stream = await client.chat.completions.create({ model: 'chat', messages: hi, max_tokens: 8, stream: true, stream_options: { include_usage: true }, ignore_eos: true } as never);
    const chunks = [];
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.ChatCompletionChunk>) chunks.push(chunk);
    const usageChunk = chunks.at(-1)!;
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage).toMatchObject({ completion_tokens: 8 });
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('length'); // ignore_eos: it ran to max_tokens
    const contentChunks = chunks.filter((c) => c.choices[0]?.delta.content);
    expect(contentChunks.length).toBeGreaterThan(0);
    expect(contentChunks.length).toBeLessThanOrEqual(8);
  }, 60_000);

  it('max_tokens, seed, temperature, top_p, stop and n', async () => {
    const request = { model: 'chat', messages: hi, max_tokens: 24, seed: 11, temperature: 0.9, top_p: 0.9, ignore_eos: true } as const;
    const a = await client.chat.completions.create(request as never);
    const b = await client.chat.completions.create(request as never);
    expect(a.usage!.completion_tokens).toBe(24);
    expect(a.choices[0]!.finish_reason).toBe('length');
    expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content); // same seed, same text
    const words = a.choices[0]!.message.content!.split(' ');
    const stopWord = words.slice(2).find((w) => /^[a-z]{2,}$/.test(w) && a.choices[0]!.message.content!.indexOf(` ${w}`) > 0)!;
    const stopped = await client.chat.completions.create({ ...request, stop: [` ${stopWord}`] } as never);
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    expect(stopped.choices[0]!.message.content).toBe(a.choices[0]!.message.content!.slice(0, a.choices[0]!.message.content!.indexOf(` ${stopWord}`)));
    const two = await client.chat.completions.create({ ...request, max_tokens: 6, n: 2 } as never);
    expect(two.choices.map((c) => c.index)).toEqual([0, 1]);
    expect(two.usage!.completion_tokens).toBe(12);
    expect(two.choices[0]!.message.content).not.toBe(two.choices[1]!.message.content); // seed + index per choice
  }, 60_000);

  it("bad input gets the engine's 400 in svc's envelope (a catalogue code, the OpenAI type in details); the engine keeps serving", async () => {
    const bad = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: 'not a list' } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: { code: 'request.invalid', message: "Expected 'messages' to be an array", details: { type: 'invalid_request_error' } } });
    const range = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: hi, max_tokens: 'many' } });
    expect(range.status).toBe(400);
    expect(range.json).toEqual({ error: { code: 'request.invalid', message: "'max_tokens' must be an integer", details: { type: 'invalid_request_error' } } });
    // Streamed requests fail before their first event: the same envelope, not an SSE body.
    const streamed = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: hi, temperature: 'hot', stream: true } });
    expect(streamed.status).toBe(400);
    expect(streamed.json.error).toEqual({ code: 'request.invalid', message: "'temperature' must be a number", details: { type: 'invalid_request_error' } });
    const long = client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'word '.repeat(1500) }], max_tokens: 4 });
    await expect(long).rejects.toMatchObject({ status: 400, error: { code: 'request.context_exceeded', details: { type: 'exceed_context_size_error', n_ctx: 1024 } } });
    const after = await client.chat.completions.create({ model: 'chat', messages: hi, max_tokens: 2 });
    expect(after.choices[0]!.message.content).toMatch(/\S/);
    expect((await slot('chat')).restarts).toBe(0);
  }, 60_000);
});

describe('enable_thinking on the built-in engine', () => {
  it('a request with chat_template_kwargs.enable_thinking is accepted, either way; a wrong type is a 400', async () => {
    for (const enable_thinking of [false, true]) {
      const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: hi, max_tokens: 4, chat_template_kwargs: { enable_thinking } } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json.choices[0].message.content).toMatch(/\S/);
    }
    const bad = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: hi, chat_template_kwargs: { enable_thinking: 'off' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toEqual({ code: 'request.invalid', message: "'chat_template_kwargs.enable_thinking' must be a boolean", details: { type: 'invalid_request_error' } });
  }, 60_000);
});

describe('completions, embeddings and rerank through the gateway', () => {
  it('completions with and without streaming; a completion continues the prompt', async () => {
    const completion = await client.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 8, seed: 3, ignore_eos: true } as never);
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0]!.text).toMatch(/^ \S/); // starts with the space before the next word
    expect(completion.usage).toMatchObject({ completion_tokens: 8 });
    const response = await post('/v1/completions', { model: 'chat', prompt: 'Once upon a time', max_tokens: 8, seed: 3, ignore_eos: true, stream: true });
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.every((c) => c.object === 'text_completion' && c.id === chunks[0].id)).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null && !('usage' in c))).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ choices: [{ text: '', finish_reason: 'length' }], usage: { completion_tokens: 8 } });
    expect(chunks.map((c) => c.choices[0].text).join('')).toBe(completion.choices[0]!.text); // same seed
  }, 60_000);

  it('embeddings of a string and of a list, unit length, base64 (the client default) and float', async () => {
    const one = await client.embeddings.create({ model: 'embed', input: 'hello' });
    expect(one.data).toHaveLength(1);
    const vector = one.data[0]!.embedding;
    expect(vector).toHaveLength(64);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 4);
    const list = await client.embeddings.create({ model: 'embed', input: ['hello', 'the moon is red'], encoding_format: 'float' });
    expect(list.data.map((d) => d.index)).toEqual([0, 1]);
    list.data[0]!.embedding.forEach((x, i) => expect(x).toBeCloseTo(vector[i]!, 5));
    expect(list.data[1]!.embedding).not.toEqual(list.data[0]!.embedding);
    expect(list.usage.prompt_tokens).toBeGreaterThan(2);
  }, 60_000);

  it('rerank on /v1/rerank and /v1/rerankings: every document scored, best first, top_n', async () => {
    const documents = ['a cat sat on the mat', 'the sun is big', 'cars go fast', 'cats are small animals'];
    const answer = await api(gw.url, '/v1/rerank', { method: 'POST', body: { model: 'rerank', query: 'what is a cat', documents } });
    expect(answer.status).toBe(200);
    const results = answer.json.results as { index: number; relevance_score: number }[];
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3]);
    for (const r of results) expect(r.relevance_score).toBeGreaterThan(0);
    for (const r of results) expect(r.relevance_score).toBeLessThan(1);
    expect(results.map((r) => r.relevance_score)).toEqual([...results.map((r) => r.relevance_score)].sort((a, b) => b - a));
    expect(new Set(results.map((r) => r.relevance_score)).size).toBeGreaterThan(1);
    expect(answer.json.usage.prompt_tokens).toBeGreaterThan(0);
    const top = await api(gw.url, '/v1/rerankings', { method: 'POST', body: { model: 'rerank', query: 'what is a cat', documents, top_n: 2 } });
    expect(top.json.results).toEqual(results.slice(0, 2));
    const bad = await api(gw.url, '/v1/rerank', { method: 'POST', body: { model: 'rerank', documents } });
    expect(bad.json).toEqual({ error: { code: 'request.invalid', message: '"query" must be provided', details: { type: 'invalid_request_error' } } });
  }, 60_000);
});

describe('slots on the built-in engine', () => {
  it('an unknown engine flag fails the load with the engine naming the flag', async () => {
    const load = await api(gw.url, '/api/slots/broken/load', { method: 'POST' });
    expect(load.status).toBe(502);
    expect(load.json.error.code).toBe('slot.load_failed');
    expect(JSON.stringify(load.json.error.details)).toContain('unknown flag \\"-fa\\"');
  }, 60_000);

  it('`svc slot create --provider builtin` makes a slot that serves chat', async () => {
    // A port of this worker's block: the pool's 8081.. may be taken by another test file's engine.
    const port = String(await freeSlotPort());
    const created = runSvc(['slot', 'create', 'made', '--provider', 'builtin', '--hardware', 'cpu', '-m', 'tiny', '--ctx-size', '512', '-p', port], { home: home.home, env: { SVC_API_URL: gw.url } });
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toMatch(/created slot made .*provider builtin/);
    const answer = await client.chat.completions.create({ model: 'made', messages: hi, max_tokens: 4 });
    expect(answer.choices[0]!.message.content).toMatch(/\S/);
    expect(await slot('made')).toMatchObject({ provider: 'builtin', state: 'ready' });
  }, 60_000);
});
