// A remote OpenAI-compatible upstream on another port: a second llama-server that demands
// an API key. It shows up in /v1/models and requests for its model are routed to it, with
// the key taken from the environment variable upstreams.toml names.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { llamaServerPath, llamaServerSkipReason, tinyModel } from './helpers/llama.js';
import { freePort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) console.warn(llamaServerSkipReason());

let remote: ChildProcess | undefined;
let remotePort: number;
let gw: Gateway;

beforeAll(async () => {
  if (!LLAMA_SERVER) return;
  const home = tempHome();
  const model = await tinyModel(join(home.home, 'models'));
  remotePort = await freePort();
  remote = spawn(LLAMA_SERVER, ['-m', model, '--host', '127.0.0.1', '--port', String(remotePort), '--alias', 'far-tiny', '-c', '512', '--api-key', 'sekret-key'], { stdio: 'ignore' });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${remotePort}/health`)).status, { what: 'the remote llama-server to turn healthy', until: (status) => status === 200, timeout: 30_000 });
  home.write('upstreams.toml', `[upstreams.far]\nbase_url = "http://127.0.0.1:${remotePort}/v1"\napi_key_env = "FAR_API_KEY"\n`);
  gw = await startGateway(home.home, { env: { FAR_API_KEY: 'sekret-key' } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  remote?.kill('SIGTERM');
});

describe.skipIf(!LLAMA_SERVER)('a remote upstream', () => {
  it('shows up in /v1/models, owned by the upstream', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'anything' });
    const ids = [];
    for await (const model of client.models.list()) ids.push({ id: model.id, owned_by: model.owned_by });
    expect(ids).toContainEqual({ id: 'far-tiny', owned_by: 'far' });
  });

  it('is routed to, with the API key from the environment', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'not-the-upstream-key' });
    const answer = await client.chat.completions.create({ model: 'far-tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
    expect(answer.choices[0]!.message.content).toMatch(/\S/);
    // Without the key the remote refuses: proof that the gateway sent it.
    const direct = await fetch(`http://127.0.0.1:${remotePort}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"messages":[{"role":"user","content":"x"}]}' });
    expect(direct.status).toBe(401);
  });

  it("turns an upstream error into svc's envelope: its status, its message, its body under details.upstream", async () => {
    const bad = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'far-tiny', messages: 'not a list' } });
    const direct = await fetch(`http://127.0.0.1:${remotePort}/v1/chat/completions`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sekret-key' },
      body: JSON.stringify({ model: 'far-tiny', messages: 'not a list' }),
    });
    const original = await direct.json() as { error: { message: string } };
    expect(bad.status).toBe(direct.status);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: { code: 'upstream.bad_request', message: original.error.message, details: { status: 400, upstream_name: 'far', upstream: original } } });
  });
});
