// The /v1 surface through the real gateway to real llama-server slots on the tiny model,
// driven by the official `openai` client, plus raw HTTP where bytes matter.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, processAlive } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

let gw: Gateway;
let client: OpenAI;

beforeAll(async () => {
  if (!LLAMA_SERVER) return;
  const home = await homeWithTinySlots([
    // 8192: the killed-mid-stream test needs a generation that outlasts a loaded machine.
    { name: 'chat', contextSize: 8192 },
    { name: 'embed', type: 'embedding' },
    { name: 'cold' },
    { name: 'other' },
  ]);
  gw = await startGateway(home.home, { env: { SVC_LLAMA_SERVER: LLAMA_SERVER } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
});

const slot = async (name: string) => (await api(gw.url, `/api/slots/${name}`)).json;

/** A stream's bytes with the per-call fields (id, created, timings) blanked out. */
const normalise = (text: string) =>
  text.replace(/"id":"[^"]*"/g, '"id":"-"').replace(/"created":\d+/g, '"created":0').replace(/"timings":\{[^}]*\}/g, '"timings":{}');

describe.skipIf(!LLAMA_SERVER)('/v1 through the gateway to llama-server', () => {
  it('chat without streaming starts the slot on demand and answers', async () => {
    const answer = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hello' }], max_tokens: 16 });
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0]!.message.content).toMatch(/\S/);
    expect(answer.usage?.completion_tokens).toBeGreaterThan(0);
    expect((await slot('chat')).state).toBe('ready');
  }, 60_000);

  it('chat with streaming follows the spec: role first, content deltas, a finish_reason, [DONE]', async () => {
    const stream = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], max_tokens: 12, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]!.choices[0]!.delta.role).toBe('assistant');
    const finishes = chunks.map((c) => c.choices[0]?.finish_reason ?? null);
    expect(finishes.slice(0, -1).every((f) => f === null)).toBe(true);
    expect(['stop', 'length']).toContain(finishes.at(-1));
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toMatch(/\S/);
  }, 60_000);

  it('relays the stream byte for byte: the same bytes as the engine sends', async () => {
    const request = { model: 'tiny', messages: [{ role: 'user', content: 'tell me' }], max_tokens: 24, stream: true, seed: 42, temperature: 0 };
    const direct = await fetch(`${(await slot('chat')).base_url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const viaGateway = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...request, model: 'chat' }) });
    expect(viaGateway.headers.get('content-type')).toBe(direct.headers.get('content-type'));
    expect(viaGateway.headers.get('x-accel-buffering')).toBe('no');
    const [a, b] = [await direct.text(), await viaGateway.text()];
    expect(b.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(normalise(b)).toBe(normalise(a));
  }, 60_000);

  it('completions and embeddings', async () => {
    const completion = await client.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 8 });
    expect(completion.choices[0]!.text).toMatch(/\S/);
    const embedding = await client.embeddings.create({ model: 'embed', input: ['one', 'two'] });
    expect(embedding.data).toHaveLength(2);
    expect(embedding.data[0]!.embedding).toHaveLength(64);
  }, 60_000);

  it('resolves svc/* names and model ids, and refuses a route the slot type does not serve', async () => {
    const viaVirtual = await client.chat.completions.create({ model: 'svc/primary', messages: [{ role: 'user', content: 'x' }], max_tokens: 4 });
    expect(viaVirtual.choices).toHaveLength(1);
    const wrong = await api(gw.url, '/v1/embeddings', { method: 'POST', body: { model: 'chat', input: 'x' } });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.code).toBe('dispatch.wrong_slot_type');
  }, 60_000);

  it('errors: unknown model 404 with candidates, no model 400, malformed JSON 400', async () => {
    const unknown = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chta', messages: [] } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('model.not_found');
    expect(unknown.json.error.details.candidates).toContain('chat');
    const missing = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { messages: [] } });
    expect(missing.status).toBe(400);
    const malformed = await api(gw.url, '/v1/chat/completions', { method: 'POST', raw: '{"model":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe('request.invalid_json');
  });

  it("llama-server's own 4xx reaches the client in svc's envelope, the engine's body under details.upstream", async () => {
    const request = { model: 'tiny', messages: 'not a list' };
    await api(gw.url, '/api/slots/chat/load', { method: 'POST' });
    const direct = await fetch(`${(await slot('chat')).base_url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const original = await direct.json() as { error: { code: number; message: string } };
    expect(original.error.code).toBe(direct.status); // llama-server's numeric code: not the envelope
    const viaGateway = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { ...request, model: 'chat' } });
    expect(viaGateway.status).toBe(direct.status);
    expect(viaGateway.json).toEqual({ error: { code: 'upstream.bad_request', message: original.error.message, details: { status: 400, slot: 'chat', upstream: original } } });
    // The same as a stream: the engine refuses before streaming, so it is a plain JSON answer too.
    const streamed = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { ...request, model: 'chat', stream: true } });
    expect(streamed.status).toBe(400);
    expect(streamed.json.error.code).toBe('upstream.bad_request');
  }, 60_000);

  it('a client that leaves mid-stream aborts the upstream request and frees the slot', async () => {
    // The engine's own account: llama-server logs "cancel task" for a request whose client
    // (the gateway) hung up, and nothing else of svc's ends a generation of the engine.
    const cancels = async () => ((await api(gw.url, '/api/slots/chat/logs?lines=500')).json.lines as string[]).filter((l) => /cancel task, id_task = /.test(l)).length;
    const before = await cancels();
    const controller = new AbortController();
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'go' }], max_tokens: 100000, stream: true, ignore_eos: true }),
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await waitFor(cancels, { what: 'the engine to log the cancelled task', until: (count) => count === before + 1 });
    await waitFor(() => slot('chat'), { what: 'the aborted stream to leave the slot', until: (view) => view.in_flight === 0 });
  }, 60_000);

  it('an engine killed mid-stream ends the stream with one error event; other slots keep serving', async () => {
    await client.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'warm' }], max_tokens: 2 });
    // The pid first, so the kill follows the first chunk at once, long before the generation ends.
    const { pid } = await slot('chat');
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'go' }], max_tokens: 100000, stream: true, ignore_eos: true }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    process.kill(pid, 'SIGKILL');
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
    const last = JSON.parse(events.at(-1)!.slice('data: '.length));
    expect(last.error.code).toMatch(/^dispatch\.|^slot\./);
    // The socket breaks before the gateway reaps the engine: wait (bounded) for the reaping.
    await waitFor(() => !processAlive(pid), { what: 'the gateway to reap the engine' });
    const other = await client.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'still there?' }], max_tokens: 4 });
    expect(other.choices).toHaveLength(1);
  }, 60_000);

  it('twenty identical streams on a cold slot make one upstream request and get twenty identical streams', async () => {
    // Enabled slots start with the gateway: once this one has, unloading it makes it cold.
    await waitFor(() => slot('cold'), { what: 'the cold slot to start with the gateway', until: (view) => view.state === 'ready', timeout: 30_000 });
    expect((await api(gw.url, '/api/slots/cold/unload', { method: 'POST' })).status).toBe(200);
    expect((await slot('cold')).state).toBe('stopped');
    const body = JSON.stringify({ model: 'cold', messages: [{ role: 'user', content: 'same' }], max_tokens: 16, stream: true, seed: 7, temperature: 0 });
    const texts = await Promise.all(Array.from({ length: 20 }, async () => {
      const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return response.text();
    }));
    expect(new Set(texts).size).toBe(1);
    expect(texts[0]).toMatch(/data: \[DONE\]\n\n$/);
    // Counted at the engine: llama-server logs one "launch_slot_" line per request it runs.
    const logs = (await api(gw.url, '/api/slots/cold/logs?lines=500')).json.lines as string[];
    expect(logs.filter((line) => line.includes('launch_slot_'))).toHaveLength(1);
    expect((await slot('cold')).in_flight).toBe(0);
  }, 60_000);
});
