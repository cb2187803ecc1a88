// /v1/responses beyond the built-in engine: a llama-server slot and a remote chat-only
// upstream (a second llama-server demanding an API key) get it translated to chat
// completions; an upstream marked `responses = true` (another svc gateway, which has the
// Responses API) gets the request passed through, so the answer and its stored copy are
// that gateway's, not this one's.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { homeWithTinySlots, llamaServerPath, llamaServerSkipReason, tinyModel } from './helpers/llama.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

let remote: ChildProcess | undefined;
let gw: Gateway;
let far: Gateway;
let client: OpenAI;

beforeAll(async () => {
  if (!LLAMA_SERVER) return;
  // The far gateway: a svc, which has the Responses API.
  const farHome = await homeWithTinySlots([{ name: 'far-chat', contextSize: 1024 }]);
  far = await startGateway(farHome.home, { env: { SVC_LLAMA_SERVER: LLAMA_SERVER } });
  // The remote chat-only upstream.
  const remoteHome = tempHome();
  const model = await tinyModel(join(remoteHome.home, 'models'));
  const remotePort = await freePort();
  // --no-jinja: this llama-server's Jinja path builds no working JSON-schema grammar for the
  // tiny model's ChatML template ("Failed to initialize samplers"); its legacy path does.
  remote = spawn(LLAMA_SERVER, ['-m', model, '--host', '127.0.0.1', '--port', String(remotePort), '--alias', 'remote-tiny', '-c', '1024', '--api-key', 'sekret-key', '--no-jinja'], { stdio: 'ignore' });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${remotePort}/health`)).status, { what: 'the remote llama-server to turn healthy', until: (status) => status === 200, timeout: 30_000 });
  // This gateway: a llama-server slot, the remote, and the far gateway as a Responses upstream.
  const home = await homeWithTinySlots([
    { name: 'llama', contextSize: 1024 },
    { name: 'llama-nj', contextSize: 1024, extra: '[server]\nextra_args = "--no-jinja"' },
  ]);
  home.write('upstreams.toml', [
    `[upstreams.remote]\nbase_url = "http://127.0.0.1:${remotePort}/v1"\napi_key_env = "REMOTE_KEY"\n`,
    `[upstreams.far]\nbase_url = "${far.url}/v1"\nmodels = ["far-chat"]\nresponses = true\n`,
  ].join('\n'));
  gw = await startGateway(home.home, { env: { REMOTE_KEY: 'sekret-key', SVC_LLAMA_SERVER: LLAMA_SERVER } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything', maxRetries: 0 });
}, 90_000);

afterAll(async () => {
  await gw?.stop();
  await far?.stop();
  remote?.kill('SIGTERM');
});

describe.skipIf(!LLAMA_SERVER).each(['llama', 'remote-tiny'])('/v1/responses translated for %s', (model) => {
  it('creates, streams and continues a conversation', async () => {
    const first = await client.responses.create({ model, input: 'hello there', instructions: 'Be brief.', max_output_tokens: 8 });
    expect(first.output.find((i) => i.type === 'message')).toBeDefined();
    expect(first.output_text).toMatch(/\S/);
    expect(first.usage!.input_tokens).toBeGreaterThan(3);

    const stream = client.responses.stream({ model, input: 'and then?', previous_response_id: first.id, max_output_tokens: 8 });
    let deltas = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') deltas += event.delta;
    const second = await stream.finalResponse();
    expect(second.output_text).toBe(deltas);
    expect(second.usage!.input_tokens).toBeGreaterThan(first.usage!.input_tokens);
    expect((await client.responses.retrieve(second.id)).previous_response_id).toBe(first.id);
    await client.responses.delete(second.id);
    expect((await api(gw.url, `/v1/responses/${second.id}`)).status).toBe(404);
  }, 60_000);
});

describe.skipIf(!LLAMA_SERVER).each(['llama-nj', 'remote-tiny'])('text.format json_schema relayed to %s', (model) => {
  it("is answered under the engine's own grammar", async () => {
    const schema = { type: 'object', properties: { word: { type: 'string', maxLength: 8 } }, required: ['word'], additionalProperties: false };
    const response = await client.responses.create({ model, input: 'a word', text: { format: { type: 'json_schema', name: 'w', schema, strict: true } }, max_output_tokens: 60 });
    expect(new Ajv().compile(schema)(JSON.parse(response.output_text))).toBe(true);
  }, 60_000);
});

describe.skipIf(!LLAMA_SERVER)('a function call round trip on a llama-server slot', () => {
  it('renders the call and its output into the prompt', async () => {
    const call = { type: 'function_call' as const, call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
    const output = { type: 'function_call_output' as const, call_id: 'call_1', output: '{"temperature_c": 21}' };
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }];
    const without = await client.responses.create({ model: 'llama', input: 'weather in Paris?', tools, max_output_tokens: 4 });
    const withCall = await client.responses.create({ model: 'llama', input: [{ role: 'user', content: 'weather in Paris?' }, call, output], tools, max_output_tokens: 4 });
    expect(withCall.status).not.toBe('failed');
    expect(withCall.usage!.input_tokens).toBeGreaterThan(without.usage!.input_tokens + 8);
    const items = await client.responses.inputItems.list(withCall.id, { order: 'asc' });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output']);
  }, 60_000);
});

describe.skipIf(!LLAMA_SERVER)('an upstream with the Responses API', () => {
  it('gets /v1/responses passed through: the far gateway answers and keeps it', async () => {
    const response = await client.responses.create({ model: 'far-chat', input: 'hello', max_output_tokens: 6 });
    expect(response.id).toMatch(/^resp_/);
    expect((await api(far.url, `/v1/responses/${response.id}`)).status).toBe(200);
    expect((await api(gw.url, `/v1/responses/${response.id}`)).status).toBe(404);
    const stream = client.responses.stream({ model: 'far-chat', input: 'more', previous_response_id: response.id, max_output_tokens: 6 });
    const final = await stream.finalResponse();
    expect(final.previous_response_id).toBe(response.id);
  }, 60_000);
});
