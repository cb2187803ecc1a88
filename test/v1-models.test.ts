// GET /v1/models and /v1/models/{id} end to end: the built gateway in a temp SVC_HOME with
// a remote OpenAI-compatible upstream (a local HTTP server in this process) in
// upstreams.toml, a static-list provider with a model_prefix, an llm slot on the tiny
// model and a disabled embedding slot. The "ready slot" case runs a real llama-server and
// is skipped with a message when that binary is missing (under CI=true it fails instead).
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways, type TempHome } from './helpers/gateway.js';
import { llamaServerPath, llamaServerSkipReason, tinyModel } from './helpers/llama.js';
import { freeSlotPort } from './helpers/ports.js';

const LLAMA_SERVER = llamaServerPath();
if (!LLAMA_SERVER) process.stderr.write(`test/v1-models.test.ts: the ready-slot test is ${llamaServerSkipReason()}\n`);

const { home: makeHome, gateway } = useTempGateways(afterEach);

const remotes: Server[] = [];
afterEach(async () => {
  await Promise.all(remotes.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

interface RemoteUpstream {
  url: string;
  requests: IncomingMessage[];
  /** Requests answered, and requests whose client left before any answer. */
  answered: number;
  abandoned: number;
}

/** A remote OpenAI-compatible server: GET /v1/models answers two ids after `delayMs`, or never when `hang`. */
async function remoteUpstream(delayMs = 0, hang = false): Promise<RemoteUpstream> {
  const state: RemoteUpstream = { url: '', requests: [], answered: 0, abandoned: 0 };
  const server = createServer((req, res) => {
    state.requests.push(req);
    res.on('close', () => { if (!res.writableEnded) state.abandoned++; });
    if (hang) return;
    setTimeout(() => {
      state.answered++;
      if (req.method === 'GET' && req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'remote-llama-70b', object: 'model', owned_by: 'lab' }, { id: 'remote-embed', object: 'model', owned_by: 'lab' }] }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      }
    }, delayMs);
  });
  remotes.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/** The home: upstream "lab" (fetched, keyed), provider "cloud" (static, prefixed), slots chat and emb. */
async function homeWith(upstreamUrl: string): Promise<TempHome> {
  const h = makeHome();
  h.write('upstreams.toml', `[upstreams.lab]\nbase_url = "${upstreamUrl}"\napi_key_env = "LAB_KEY"\n\n[upstreams.local]\nbase_url = "http://127.0.0.1:1/v1"\nslot = "chat"\n`);
  h.write('providers.toml', '[providers.cloud]\nbase_url = "http://127.0.0.1:1/v1"\nmodel_prefix = "cloud"\nmodels = ["gpt-x"]\n\n[providers.off]\nbase_url = "http://127.0.0.1:1/v1"\nenabled = false\nmodels = ["never"]\n');
  h.write('slots/chat.toml', `[slot]\nname = "chat"\nport = ${await freeSlotPort()}\ndevice = "cpu"\n\n[model]\ndefault = "tiny"\ncontext_size = 512\n`);
  h.write('slots/emb.toml', `[slot]\nname = "emb"\nport = ${await freeSlotPort()}\ndevice = "cpu"\ntype = "embedding"\nenabled = false\n\n[model]\ndefault = "tiny"\n`);
  const model = await tinyModel(join(h.home, 'models'));
  mkdirSync(join(h.stateRoot, 'registry'), { recursive: true });
  writeFileSync(join(h.stateRoot, 'registry/registry.toml'), `[models.tiny]\npath = ${JSON.stringify(model)}\n`);
  return h;
}

/** Without llama-server the gateway cannot start slot chat: it stays stopped (enabled slots start with the gateway otherwise). */
const env = (extra: Record<string, string> = {}) => ({ env: { LAB_KEY: 'sk-lab-secret', ...extra } });
const withEngine = () => env(LLAMA_SERVER ? { SVC_LLAMA_SERVER: LLAMA_SERVER } : {});

describe('GET /v1/models', () => {
  it('lists the upstream ids (owned_by the upstream) and svc/* names for slots that exist; a stopped slot has no alias', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), env());
    const { status, json } = await api(gw.url, '/v1/models');
    expect(status).toBe(200);
    expect(json.object).toBe('list');
    const created = json.data[0].created as number;
    expect(Math.abs(created - Date.now() / 1000)).toBeLessThan(60);
    expect(json.data).toEqual([
      { id: 'cloud/gpt-x', object: 'model', created, owned_by: 'cloud' },
      { id: 'remote-llama-70b', object: 'model', created, owned_by: 'lab' },
      { id: 'remote-embed', object: 'model', created, owned_by: 'lab' },
      ...['svc/primary', 'svc/utility', 'svc/npu'].map((id) => ({
        id, object: 'model', created, owned_by: 'svc', context_length: 512, _hal0: { virtual: true, kind: 'live-resolve', resolves_to: 'chat', device: 'cpu' },
      })),
    ]);
    // The upstream was asked once, with the bearer from LAB_KEY; the slot-fronting upstream is not remote.
    expect(remote.requests).toHaveLength(1);
    expect(remote.requests[0]!.headers.authorization).toBe('Bearer sk-lab-secret');
    // Warm cache: a second listing asks nobody.
    await api(gw.url, '/v1/models');
    expect(remote.requests).toHaveLength(1);
  });

  it('concurrent listings on a cold cache share one upstream request', async () => {
    const remote = await remoteUpstream(300);
    const gw = await gateway(await homeWith(remote.url), env());
    const results = await Promise.all(Array.from({ length: 10 }, () => api(gw.url, '/v1/models')));
    for (const r of results) expect(r.json.data.map((m: { id: string }) => m.id)).toContain('remote-llama-70b');
    expect(remote.requests).toHaveLength(1);
  });

  it('an upstream that never answers is left out of the listing once prefetch_timeout_s passes, not the others', async () => {
    // It never answers: the listing can only come back through the prefetch deadline.
    const remote = await remoteUpstream(0, true);
    const h = await homeWith(remote.url);
    h.write('svc.toml', '[dispatcher]\nprefetch_timeout_s = 0.3\n');
    const gw = await gateway(h, env());
    const { status, json } = await api(gw.url, '/v1/models');
    expect(status).toBe(200);
    expect(remote.requests).toHaveLength(1);
    expect(remote.answered).toBe(0);
    const ids = json.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(['cloud/gpt-x', 'svc/primary', 'svc/utility', 'svc/npu']);
    // The gateway gave up on the upstream's request; it did not leave it hanging.
    await expect.poll(() => remote.abandoned, { timeout: 10_000 }).toBe(1);
  });

  it('GET /v1/models/{id}: an upstream id, a svc/* name; unknown ids are 404 model.not_found with near ids', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), env());
    const one = await api(gw.url, '/v1/models/remote-embed');
    expect(one.status).toBe(200);
    expect(one.json).toMatchObject({ id: 'remote-embed', object: 'model', owned_by: 'lab' });
    const virtual = await api(gw.url, '/v1/models/svc/primary');
    expect(virtual.json).toMatchObject({ id: 'svc/primary', _hal0: { resolves_to: 'chat' } });
    expect((await api(gw.url, '/v1/models/svc%2Futility')).json).toMatchObject({ id: 'svc/utility' });
    expect((await api(gw.url, '/v1/models/cloud/gpt-x')).json).toMatchObject({ id: 'cloud/gpt-x', owned_by: 'cloud' });

    for (const id of ['remote-llama', 'svc/embed', 'never']) {
      const missing = await api(gw.url, `/v1/models/${id}`);
      expect(missing.status, id).toBe(404);
      expect(missing.json.error.code).toBe('model.not_found');
      expect(missing.json.error.details.model).toBe(id);
    }
    expect((await api(gw.url, '/v1/models/remote-llama')).json.error.details.candidates).toEqual(['remote-llama-70b']);
    expect((await api(gw.url, '/v1/models/chta')).json.error.details.candidates).toContain('chat');
  });

  it('GET /v1/models/{id} answers every id a request could be routed with, listed or not', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), env());
    const listed = (await api(gw.url, '/v1/models')).json.data.map((m: { id: string }) => m.id);
    // The stopped slot "chat": not listed, yet routable by its name, its model id and svc/chat.
    for (const id of ['chat', 'tiny', 'svc/chat']) expect(listed).not.toContain(id);
    const byName = await api(gw.url, '/v1/models/chat');
    expect(byName.status).toBe(200);
    expect(byName.json).toEqual({ id: 'chat', object: 'model', created: byName.json.created, owned_by: 'svc', name: 'chat · tiny', context_length: 512 });
    expect((await api(gw.url, '/v1/models/tiny')).json).toEqual({ id: 'tiny', object: 'model', created: byName.json.created, owned_by: 'svc', name: 'chat · tiny', slot: 'chat' });
    expect((await api(gw.url, '/v1/models/svc/chat')).json).toMatchObject({ id: 'svc/chat', owned_by: 'svc', _hal0: { virtual: true, resolves_to: 'chat', device: 'cpu' } });
  });

  it('a disabled slot is not listed and not routed: slot.disabled names its file, on GET /v1/models/{id} and on a request', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), env());
    expect((await api(gw.url, '/v1/models')).json.data.map((m: { id: string }) => m.id)).not.toContain('emb');
    for (const answer of [await api(gw.url, '/v1/models/emb'), await api(gw.url, '/v1/embeddings', { method: 'POST', body: { model: 'emb', input: 'x' } }), await api(gw.url, '/v1/embeddings', { method: 'POST', body: { model: 'svc/emb', input: 'x' } })]) {
      expect(answer.status).toBe(409);
      expect(answer.json.error).toMatchObject({ code: 'slot.disabled', details: { slot: 'emb', file: 'slots/emb.toml' } });
      expect(answer.json.error.message).toMatch(/disabled in slots\/emb\.toml/);
    }
  });

  it('the official openai client lists and retrieves models', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), env());
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x' });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['cloud/gpt-x', 'remote-llama-70b', 'remote-embed', 'svc/primary', 'svc/utility', 'svc/npu']);
    const model = await client.models.retrieve('remote-llama-70b');
    expect(model.owned_by).toBe('lab');
    expect((await client.models.retrieve('svc/primary')).id).toBe('svc/primary');
    await expect(client.models.retrieve('nope')).rejects.toMatchObject({ status: 404 });
  });
});

describe('GET /v1/models with a ready embedding slot on the built-in engine', () => {
  it('lists the model id its engine serves, owned_by svc and naming its slot; once it is stopped, no more', async () => {
    const remote = await remoteUpstream();
    const h = await homeWith(remote.url);
    h.write('slots/vec.toml', `[slot]\nname = "vec"\nport = ${await freeSlotPort()}\ndevice = "cpu"\ntype = "embedding"\nprovider = "builtin"\n\n[model]\ndefault = "tiny"\n`);
    const gw = await gateway(h, env());
    expect((await api(gw.url, '/v1/models')).json.data.map((m: { id: string }) => m.id)).not.toContain('tiny');
    const load = await api(gw.url, '/api/slots/vec/load', { method: 'POST', body: {} });
    expect(load.status, load.text).toBe(200);
    const { json } = await api(gw.url, '/v1/models');
    // After the (absent) alias entries, before the remote ids; the llm slot "chat" serves tiny too, but it is stopped.
    // svc serves it (as the aliases): owned_by svc, not the slot's name, which is `slot` (and in `name`, as an alias's).
    expect(json.data[0]).toEqual({ id: 'tiny', object: 'model', created: json.data[0].created, owned_by: 'svc', name: 'vec · tiny', slot: 'vec' });
    expect(json.data.filter((m: { id: string }) => m.id === 'tiny')).toHaveLength(1);
    await api(gw.url, '/api/slots/vec/unload', { method: 'POST', body: {} });
    expect((await api(gw.url, '/v1/models')).json.data.map((m: { id: string }) => m.id)).not.toContain('tiny');
  }, 60_000);
});

describe.skipIf(!LLAMA_SERVER)('GET /v1/models with a ready llama-server slot', () => {
  it('a ready llm slot gets an alias entry first, with its name and context_length', async () => {
    const remote = await remoteUpstream();
    const gw = await gateway(await homeWith(remote.url), withEngine());
    const load = await api(gw.url, '/api/slots/chat/load', { method: 'POST', body: {} });
    expect(load.status, load.text).toBe(200);
    const { json } = await api(gw.url, '/v1/models');
    expect(json.data[0]).toEqual({ id: 'chat', object: 'model', created: json.data[0].created, owned_by: 'svc', name: 'chat · tiny', context_length: 512 });
    expect(json.data.map((m: { id: string }) => m.id)).toEqual(['chat', 'cloud/gpt-x', 'remote-llama-70b', 'remote-embed', 'svc/primary', 'svc/utility', 'svc/npu']);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x' });
    expect((await client.models.retrieve('chat')).id).toBe('chat');
    // Unloaded again: the alias goes, the virtual names stay.
    await api(gw.url, '/api/slots/chat/unload', { method: 'POST', body: {} });
    expect((await api(gw.url, '/v1/models')).json.data.map((m: { id: string }) => m.id)).not.toContain('chat');
  }, 120_000);
});
