// Explicit replica groups, the 5xx retry and the balanced audio routes (docs/scaling.md): two
// vLLM-like upstreams (test/fixtures/vllm-like.mjs: real /health, /v1/models, /metrics, chat,
// speech and transcription wire formats) serving the model under different ids, "org/a" and
// "org/b", joined in peers.toml as the group "pub"; two more serving "org/r" with the
// Responses API; and a peer gateway in front of an image upstream. Spreading is shown without
// timing: the fixtures hold requests until told, so the second request finds the first in flight.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, REPO_ROOT, runSvc, startGateway, tempHome, type Gateway } from './helpers/gateway.js';
import { freePort, freeSlotPort } from './helpers/ports.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { waitFor } from './helpers/wait.js';

const fixtures: ChildProcess[] = [];
type Fixture = 'a' | 'b' | 'r1' | 'r2';
const port: Record<Fixture, number> = { a: 0, b: 0, r1: 0, r2: 0 };
let gateway: Gateway;

const GROUP = '[models."pub"]\nreplicas = [ { target = "upstream:a", model = "org/a" }, { target = "upstream:b", model = "org/b" } ]\n';

async function vllm(name: string, model: string): Promise<number> {
  const p = await freePort();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test/fixtures/vllm-like.mjs'), '--port', String(p), '--name', name, '--model', model], { stdio: ['ignore', 'ignore', 'pipe'] });
  fixtures.push(child);
  await new Promise<void>((done) => child.stderr!.once('data', () => done()));
  return p;
}

const fixture = (name: Fixture, path: string, body?: unknown) => api(`http://127.0.0.1:${port[name]}`, path, body === undefined ? {} : { method: 'POST', body });
const mode = (name: Fixture, m: { fail?: number | null; hold?: boolean }) => fixture(name, '/mode', m);
const stats = async (name: Fixture) => (await fixture(name, '/stats')).json;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const target = async (key: string): Promise<any> => (await api(gateway.url, '/api/peers')).json.peers.find((p: { target: string }) => p.target === key);
const chat = () => api(gateway.url, '/v1/chat/completions', { method: 'POST', body: { model: 'pub', messages: [{ role: 'user', content: 'hi' }] } });

/** Send two requests at once while both fixtures hold them: each must reach a different one. */
async function spread<T extends { headers: Headers }>(send: () => Promise<T>, [x, y]: [Fixture, Fixture] = ['a', 'b']): Promise<T[]> {
  await Promise.all([mode(x, { hold: true }), mode(y, { hold: true })]);
  const answers = Promise.all([send(), send()]);
  await waitFor(async () => [(await stats(x)).held, (await stats(y)).held], { what: 'one request held by each fixture', until: (h) => h[0] === 1 && h[1] === 1 });
  await Promise.all([mode(x, { hold: false }), mode(y, { hold: false })]);
  await Promise.all([fixture(x, '/release', {}), fixture(y, '/release', {})]);
  const done = await answers;
  expect(done.map((r) => r.headers.get('x-svc-target')).sort()).toEqual([`upstream:${x}`, `upstream:${y}`]);
  return done;
}

/** Close both breakers again: once the backoff elapsed, a health check is the probe that closes one. */
async function closeBreakers(): Promise<void> {
  await waitFor(async () => {
    await api(gateway.url, '/api/peers/refresh', { method: 'POST' });
    return [(await target('upstream:a')).breaker.state, (await target('upstream:b')).breaker.state];
  }, { what: 'both breakers closed', until: (s) => s.every((x) => x === 'closed') });
}

beforeAll(async () => {
  [port.a, port.b] = [await vllm('a', 'org/a'), await vllm('b', 'org/b')];
  // Two upstreams with the Responses API serving the same id: an implicit replica set.
  [port.r1, port.r2] = [await vllm('r1', 'org/r'), await vllm('r2', 'org/r')];
  const responses = (name: Fixture) => `\n[upstreams.${name}]\nbase_url = "http://127.0.0.1:${port[name]}/v1"\nkind = "vllm"\nresponses = true\n`;
  const home = tempHome({
    'upstreams.toml': `[upstreams.a]\nbase_url = "http://127.0.0.1:${port.a}/v1"\nkind = "vllm"\n\n[upstreams.b]\nbase_url = "http://127.0.0.1:${port.b}/v1"\nkind = "vllm"\n${responses('r1')}${responses('r2')}`,
    // Health checks only when asked (one at the start): a check that succeeds resets the failure count.
    'peers.toml': `[health]\ninterval_s = 3600\nbreaker_failures = 2\nbreaker_backoff_s = 0.1\n\n${GROUP}`,
  });
  gateway = await startGateway(home.home);
  await waitFor(async () => (await api(gateway.url, '/api/peers')).json.peers, { what: 'both upstreams checked', // eslint-disable-next-line @typescript-eslint/no-explicit-any
    until: (p: any[]) => p.length === 4 && p.every((x) => x.state === 'up') });
}, 30_000);
afterAll(async () => {
  await gateway?.stop();
  for (const child of fixtures) child.kill();
});

describe('an explicit replica group', () => {
  it('is listed in GET /v1/models under its own id, beside its members\' ids', async () => {
    const ids = (await api(gateway.url, '/v1/models')).json.data.map((m: { id: string; owned_by: string }) => `${m.id} ${m.owned_by}`);
    expect(ids).toEqual(expect.arrayContaining(['pub svc', 'org/a a', 'org/b b']));
  });

  it('spreads requests for the group id over its members, each sent the id it knows the model by', async () => {
    const answers = await spread(chat);
    for (const answer of answers) {
      const name = answer.headers.get('x-svc-target')!.slice('upstream:'.length);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ model: `org/${name}`, choices: [{ message: { content: `from ${name}` } }] });
    }
    const rows = (await api(gateway.url, '/api/activity?action=dispatch.replica')).json.items;
    expect(rows.slice(0, 2).map((r: { target: string }) => r.target).sort()).toEqual(['upstream:a', 'upstream:b']);
    expect(rows[0]).toMatchObject({ outcome: 'ok', details: { model: 'pub', replicas: ['upstream:a', 'upstream:b'] } });
  });

  it('still answers a request naming a member\'s own id', async () => {
    const answer = await api(gateway.url, '/v1/chat/completions', { method: 'POST', body: { model: 'org/b', messages: [{ role: 'user', content: 'hi' }] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.choices[0].message.content).toBe('from b');
  });
});

describe('a replica answering 5xx before the first byte', () => {
  it('is retried on the other, and counts toward its breaker', async () => {
    await closeBreakers();
    await mode('a', { fail: 503 });
    const before = (await stats('a')).requests.chat;
    for (const failures of [1, 2]) {
      // A tie goes to the first id: a is asked first, answers 503, and b answers the client.
      const answer = await chat();
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('x-svc-target')).toBe('upstream:b');
      expect(answer.json.choices[0].message.content).toBe('from b');
      expect((await stats('a')).requests.chat).toBe(before + failures);
      const breaker = (await target('upstream:a')).breaker;
      expect(breaker).toMatchObject({ consecutive_failures: failures, state: failures < 2 ? 'closed' : 'open' });
    }
    const row = (await api(gateway.url, '/api/activity?action=dispatch.replica')).json.items[0];
    expect(row).toMatchObject({ target: 'upstream:b', outcome: 'ok', details: { model: 'pub', retried_from: 'upstream:a' } });
    await mode('a', { fail: null });
  });

  it('is sent to the client in the error envelope when every replica answered 5xx', async () => {
    await closeBreakers();
    await Promise.all([mode('a', { fail: 503 }), mode('b', { fail: 503 })]);
    const [a, b] = [(await stats('a')).requests.chat, (await stats('b')).requests.chat];
    const answer = await chat();
    expect(answer.status, answer.text).toBe(503);
    expect(answer.headers.get('x-svc-target')).toBe('upstream:b');
    expect(answer.json.error).toMatchObject({ code: 'upstream.unavailable', message: 'b is overloaded', details: { status: 503, upstream_name: 'b', upstream: { type: 'ServiceUnavailableError' } } });
    expect([(await stats('a')).requests.chat, (await stats('b')).requests.chat]).toEqual([a + 1, b + 1]);
    const row = (await api(gateway.url, '/api/activity?action=dispatch.replica')).json.items[0];
    expect(row).toMatchObject({ target: 'upstream:b', outcome: 'error', details: { model: 'pub', retried_from: 'upstream:a' } });
    await Promise.all([mode('a', { fail: null }), mode('b', { fail: null })]);
  });
});

describe('the audio routes', () => {
  it('balance /v1/audio/speech over the group', async () => {
    await closeBreakers();
    const answers = await spread(async () => {
      const response = await fetch(`${gateway.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'pub', input: 'hello', voice: 'alloy' }) });
      return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
    });
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('audio/wav');
      expect(answer.bytes.subarray(0, 4).toString()).toBe('RIFF');
    }
    expect([(await stats('a')).models.speech, (await stats('b')).models.speech]).toEqual(['org/a', 'org/b']);
  });

  it('balance /v1/audio/transcriptions over the group, the multipart model field rewritten per member', async () => {
    const answers = await spread(async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(64)], { type: 'audio/wav' }), 'a.wav');
      form.append('model', 'pub');
      // An X-* header, as a client's own marks its requests (a bare multipart POST is served too: tool-posts.test.ts).
      const response = await fetch(`${gateway.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { 'x-client': 'test' } });
      return { status: response.status, headers: response.headers, json: (await response.json()) as { text: string } };
    });
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.json.text).toBe(`from ${answer.headers.get('x-svc-target')!.slice('upstream:'.length)}`);
    }
    expect([(await stats('a')).models.transcriptions, (await stats('b')).models.transcriptions]).toEqual(['org/a', 'org/b']);
  });
});

describe('/v1/responses passed through to upstreams with the Responses API', () => {
  it('is balanced over the replica set they form', async () => {
    const answers = await spread(() => api(gateway.url, '/v1/responses', { method: 'POST', body: { model: 'org/r', input: 'hi' } }), ['r1', 'r2']);
    for (const answer of answers) {
      const name = answer.headers.get('x-svc-target')!.slice('upstream:'.length);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.json).toMatchObject({ id: `resp_${name}`, object: 'response', output: [{ content: [{ text: `from ${name}` }] }] });
    }
    expect([(await stats('r1')).requests.responses, (await stats('r2')).requests.responses]).toEqual([1, 1]);
  });
});

describe('a group that names what does not exist', () => {
  it('is a configuration error naming models.<id>.replicas[i].target', () => {
    const home = tempHome({
      'upstreams.toml': '[upstreams.a]\nbase_url = "http://127.0.0.1:9/v1"\nkind = "vllm"\n',
      'peers.toml': '[models."pub"]\nreplicas = [ { target = "upstream:a" }, { target = "upstream:nope" }, { target = "node:x" } ]\n',
    });
    const result = runSvc(['config', 'validate', '--json'], { home: home.home });
    expect(result.status).toBe(4);
    const problems = JSON.parse(result.stdout).problems.map((p: { file: string; path: string }) => `${p.file} ${p.path}`);
    expect(problems).toEqual(['peers.toml models.pub.replicas[2].target']);
    // Fixed kind, a missing name: the cross-file rule names it.
    home.write('peers.toml', '[models."pub"]\nreplicas = [ { target = "upstream:a" }, { target = "upstream:nope" } ]\n');
    const second = JSON.parse(runSvc(['config', 'validate', '--json'], { home: home.home }).stdout);
    expect(second.problems).toEqual([expect.objectContaining({ file: 'peers.toml', path: 'models.pub.replicas[1].target', severity: 'error', message: expect.stringContaining('upstream "nope"') })]);
  });
});

describe('/v1/images/generations with peers', () => {
  const gateways: Gateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.stop();
  });

  it('goes to a peer that serves the image model when no local slot does', async () => {
    const images = await vllm('c', 'img/x');
    const b = await startGateway(tempHome({ 'upstreams.toml': `[upstreams.c]\nbase_url = "http://127.0.0.1:${images}/v1"\n` }).home);
    gateways.push(b);
    const a = await startGateway(tempHome({ 'peers.toml': `[health]\ninterval_s = 3600\n\n[peers.b]\nurl = "${b.url}"\n` }).home);
    gateways.push(a);
    await waitFor(async () => (await api(a.url, '/api/peers')).json.peers[0], { what: 'peer b checked, with img/x', until: (p) => p?.state === 'up' && p.models.includes('img/x') });
    const answer = await api(a.url, '/v1/images/generations', { method: 'POST', body: { model: 'img/x', prompt: 'a cat' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('x-svc-target')).toBe('peer:b');
    // Asked for the default url: the peer was asked for b64_json and the PNG cached here.
    expect(answer.json.data[0]).toMatchObject({ revised_prompt: 'from c', url: expect.stringMatching(/^\/api\/images\/cache\//) });
    expect((await fetch(`${a.url}${answer.json.data[0].url}`)).status).toBe(200);
    // Without the peer the model is no curated one and no slot's: refused as before.
    expect((await api(b.url, '/v1/images/generations', { method: 'POST', body: { model: 'img/y', prompt: 'a cat' } })).json.error.code).toBe('image.model_not_curated');
  }, 30_000);
});

describe('an image model served by a local ComfyUI slot and a peer', () => {
  const gateways: Gateway[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.stop();
  });

  /** A gateway with the image slot `img` (the ComfyUI fixture, `knobs` its flags) and `peer` as its peer. */
  async function withImageSlot(peer: Gateway | null, knobs: string): Promise<Gateway> {
    const home = tempHome(peer ? { 'peers.toml': `[health]\ninterval_s = 3600\n\n[peers.b]\nurl = "${peer.url}"\n` } : {});
    const extra = knobs ? `[server]\nextra_args = ${JSON.stringify(knobs)}\n` : '';
    home.write('slots/img.toml', `[slot]\nname = "img"\ntype = "image"\nprovider = "comfyui"\nprofile = "comfyui"\ndevice = "cpu"\nport = ${await freeSlotPort()}\n[model]\ndefault = "sdxl-turbo"\n${extra}`);
    const gateway = await startGateway(home.home, { env: { SVC_COMFYUI: `${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO_ROOT, 'test/fixtures/comfyui-engine.mjs'))}` } });
    gateways.push(gateway);
    if (peer) await waitFor(async () => (await api(gateway.url, '/api/peers')).json.peers[0], { what: 'peer b checked, with sdxl-turbo', until: (p) => p?.state === 'up' && p.models.includes('sdxl-turbo') });
    // Loaded here too: both replicas loaded and idle, the local slot wins the tie.
    await api(gateway.url, '/api/slots/img/start', { method: 'POST' });
    await waitFor(async () => (await api(gateway.url, '/api/slots/img')).json.state, { what: 'img ready', until: (state) => state === 'ready' });
    return gateway;
  }

  it('is a replica set: the loaded local slot answers, and one failing before its answer is passed over for the peer', async () => {
    const b = await startGateway(tempHome({ 'upstreams.toml': `[upstreams.c]\nbase_url = "http://127.0.0.1:${await vllm('c2', 'sdxl-turbo')}/v1"\n` }).home);
    gateways.push(b);
    const body = { model: 'sdxl-turbo', prompt: 'a red fox', size: '64x64', steps: 1, response_format: 'b64_json' };
    const good = await withImageSlot(b, '');
    const local = await api(good.url, '/v1/images/generations', { method: 'POST', body });
    expect(local.status, local.text).toBe(200);
    expect(local.headers.get('x-svc-target')).toBe('slot:img');
    expect(local.json._hal0).toMatchObject({ model: 'sdxl-turbo', upstream: { slot: 'img' } });
    const failing = await withImageSlot(b, '--fail-execution');
    const passed = await api(failing.url, '/v1/images/generations', { method: 'POST', body });
    expect(passed.status, passed.text).toBe(200);
    expect(passed.headers.get('x-svc-target')).toBe('peer:b');
    expect(passed.json.data[0]).toMatchObject({ revised_prompt: 'from c2' });
    const row = (await api(failing.url, '/api/activity?action=dispatch.replica')).json.items[0];
    expect(row).toMatchObject({ target: 'peer:b', outcome: 'ok', details: { model: 'sdxl-turbo', retried_from: 'slot:img' } });
  }, 90_000);

  it('answers a url (the default format) for an image a peer made: the PNG is in this gateway\'s cache', async () => {
    const maker = await withImageSlot(null, '');
    const front = await startGateway(tempHome({ 'peers.toml': `[health]\ninterval_s = 3600\n\n[peers.maker]\nurl = "${maker.url}"\n` }).home);
    gateways.push(front);
    await waitFor(async () => (await api(front.url, '/api/peers')).json.peers[0], { what: 'peer maker checked, with sdxl-turbo', until: (p) => p?.state === 'up' && p.models.includes('sdxl-turbo') });
    const answer = await api(front.url, '/v1/images/generations', { method: 'POST', body: { model: 'sdxl-turbo', prompt: 'a red fox', size: '64x64', steps: 1 } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('x-svc-target')).toBe('peer:maker');
    expect(answer.json._hal0).toMatchObject({ model: 'sdxl-turbo', upstream: { slot: 'img' } });
    const url = answer.json.data[0].url as string;
    expect(url).toMatch(/^\/api\/images\/cache\/[0-9a-f-]{36}\.png$/);
    expect(answer.json.data[0].b64_json).toBeUndefined();
    // Served by the front gateway itself, a real PNG.
    const png = await fetch(`${front.url}${url}`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer()).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  }, 90_000);
});

describe('a group with a local slot member', () => {
  let local: Gateway | undefined;
  afterAll(async () => {
    await local?.stop();
  });

  it('answers from the built-in engine\'s slot when the remote member fails, named slot:<name>', async () => {
    const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin' }]);
    home.write('upstreams.toml', `[upstreams.a]\nbase_url = "http://127.0.0.1:${port.a}/v1"\nkind = "vllm"\n`);
    home.write('peers.toml', '[health]\ninterval_s = 3600\n\n[models."mixed"]\nreplicas = [ { target = "slot:chat" }, { target = "upstream:a", model = "org/a" } ]\n');
    local = await startGateway(home.home);
    await waitFor(async () => (await api(local!.url, '/api/peers')).json.peers, { what: 'upstream a checked', until: (p: Array<{ state: string }>) => p.length === 1 && p[0]!.state === 'up' });
    const ask = () => api(local!.url, '/v1/chat/completions', { method: 'POST', body: { model: 'mixed', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 } });
    // The slot is not loaded and a is: a is asked first.
    const first = await ask();
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('x-svc-target')).toBe('upstream:a');
    // a answers 503: the request is retried on the slot, which the built-in engine loads and answers.
    await mode('a', { fail: 503 });
    try {
      const second = await ask();
      expect(second.status, second.text).toBe(200);
      expect(second.headers.get('x-svc-target')).toBe('slot:chat');
      expect(typeof second.json.choices[0].message.content).toBe('string');
      expect(second.json.choices[0].message.content).not.toBe('from a');
      const row = (await api(local.url, '/api/activity?action=dispatch.replica')).json.items[0];
      expect(row).toMatchObject({ target: 'slot:chat', outcome: 'ok', details: { model: 'mixed', retried_from: 'upstream:a' } });
    } finally {
      await mode('a', { fail: null });
    }
  }, 120_000);
});
