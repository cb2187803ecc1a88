// The /v1 front door (src/server/front-door.ts) on a real gateway: the JSON routes are
// answered off Fastify's pipeline, yet they take bodies exactly as the Fastify routes did
// (Content-Type, size limit, empty and non-object bodies, trailing slash, query string),
// forward the client's own bytes (only the model id spliced when it changes), and carry
// Server-Timing on every answer, their own errors and the upstream's included.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots } from './helpers/faults.js';
import { api, useTempGateways } from './helpers/gateway.js';

const { home: makeHome, gateway } = useTempGateways(afterEach);

const remotes: Server[] = [];
afterEach(async () => {
  await Promise.all(remotes.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

/** A remote that records the bodies it receives and answers 200 (model "bad": 400). */
async function recordingRemote(): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      bodies.push(text);
      const bad = text.includes('"bad"');
      res.writeHead(bad ? 400 : 200, { 'content-type': 'application/json' }).end(bad ? '{"error":{"message":"no","type":"invalid_request_error"}}' : '{"choices":[]}');
    });
  });
  remotes.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies };
}

async function gatewayWithRemote(svcToml = '') {
  const remote = await recordingRemote();
  const h = makeHome();
  h.write('upstreams.toml', `[upstreams.far]\nbase_url = "${remote.url}"\nmodels = ["fine", "bad"]\n`);
  h.write('providers.toml', `[providers.pk]\nbase_url = "${remote.url}"\nmodel_prefix = "pk"\nmodels = ["spliced"]\n`);
  if (svcToml) h.write('svc.toml', svcToml);
  return { gw: await gateway(h), remote };
}

const SERVER_TIMING = /^svc;dur=\d+(\.\d+)?$/;

describe('the /v1 front door', () => {
  it('forwards the bytes the client sent; a changed model id is spliced in, every other byte kept', async () => {
    const { gw, remote } = await gatewayWithRemote();
    const sent = '{ "messages" : [ {"role":"user","content":"say \\"model\\": 1"} ],\n  "model":"fine", "max_tokens" : 3 }';
    const plain = await api(gw.url, '/v1/chat/completions', { method: 'POST', raw: sent, headers: { 'content-type': 'application/json' } });
    expect(plain.status).toBe(200);
    expect(remote.bodies.at(-1)).toBe(sent);
    const prefixed = await api(gw.url, '/v1/chat/completions', { method: 'POST', raw: sent.replace('"fine"', '"pk/spliced"'), headers: { 'content-type': 'application/json' } });
    expect(prefixed.status).toBe(200);
    expect(remote.bodies.at(-1)).toBe(sent.replace('"fine"', '"spliced"'));
  });

  it('answers with Server-Timing: on success, on its own errors, and on the upstream\'s', async () => {
    const { gw } = await gatewayWithRemote();
    const ok = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'fine', messages: [] } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('server-timing')).toMatch(SERVER_TIMING);
    const unknown = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'nobody-serves-this', messages: [] } });
    expect(unknown.json.error.code).toBe('model.not_found');
    expect(unknown.headers.get('server-timing')).toMatch(SERVER_TIMING);
    const refused = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'bad', messages: [] } });
    expect(refused.status).toBe(400);
    expect(refused.json.error.code).toMatch(/^upstream\./);
    expect(refused.headers.get('server-timing')).toMatch(SERVER_TIMING);
  });

  it('takes bodies as the Fastify routes do: media type, size, empty and non-object bodies', async () => {
    const { gw } = await gatewayWithRemote('[api]\nmax_body_mb = 1\n');
    // An API client's request (it sends a bearer); what a web page may send is browser-front-door.test.ts's.
    const post = (raw: string | undefined, headers: Record<string, string>) => api(gw.url, '/v1/chat/completions', { method: 'POST', ...(raw !== undefined && { raw }), headers: { authorization: 'Bearer sk-x', ...headers } });
    const text = await post('{"model":"fine"}', { 'content-type': 'text/plain' });
    expect([text.status, text.json.error.code]).toEqual([415, 'request.unsupported_media_type']);
    expect(text.json.error.message).toContain('Content-Type: application/json');
    const charset = await post('{"model":"fine","messages":[]}', { 'content-type': 'application/json; charset=utf-8' });
    expect(charset.status).toBe(200);
    const big = await post(JSON.stringify({ model: 'fine', pad: 'x'.repeat(1024 * 1024) }), { 'content-type': 'application/json' });
    expect([big.status, big.json.error.code]).toEqual([413, 'request.too_large']);
    // No body is no body, whatever Content-Type says.
    const empty = await post('', { 'content-type': 'application/json' });
    expect([empty.status, empty.json.error.code]).toEqual([400, 'request.not_an_object']);
    const none = await post(undefined, {});
    expect([none.status, none.json.error.code]).toEqual([400, 'request.not_an_object']);
    const list = await post('[1,2]', { 'content-type': 'application/json' });
    expect([list.status, list.json.error.code, list.json.error.details.got]).toEqual([400, 'request.not_an_object', 'array']);
    const proto = await post('{"model":"fine","__proto__":{"x":1}}', { 'content-type': 'application/json' });
    expect([proto.status, proto.json.error.code]).toEqual([400, 'request.invalid']);
  });

  it('finds its routes with a trailing slash or a query string; other methods get 405 from the one route table', async () => {
    const { gw } = await gatewayWithRemote();
    for (const path of ['/v1/chat/completions/', '/v1/chat/completions?x=1']) {
      const answer = await api(gw.url, path, { method: 'POST', body: { model: 'fine', messages: [] } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('server-timing')).toMatch(SERVER_TIMING);
    }
    const get = await api(gw.url, '/v1/chat/completions');
    expect([get.status, get.json.error.code, get.headers.get('allow')]).toEqual([405, 'request.method_not_allowed', 'POST']);
    // The /v1 answers Fastify gives carry Server-Timing too: the model list, a 405, an unknown route.
    expect(get.headers.get('server-timing')).toMatch(SERVER_TIMING);
    const models = await api(gw.url, '/v1/models');
    expect(models.status).toBe(200);
    expect(models.headers.get('server-timing')).toMatch(SERVER_TIMING);
    const unknown = await api(gw.url, '/v1/nothing/here', { method: 'POST', body: {} });
    expect([unknown.status, unknown.headers.get('server-timing')]).toEqual([404, expect.stringMatching(SERVER_TIMING)]);
    expect((await api(gw.url, '/api/status')).headers.get('server-timing')).toBeNull();
  });

  it('reports the wait for a cold slot apart, as load;dur, and only when the slot had to start', async () => {
    const home = await homeWithFaultSlots([{ name: 'cold', knobs: '--load-ms 300' }], { 'svc.toml': '[slots]\nstart_at_boot = false\n' });
    const gw = await gateway(home, { env: home.env });
    const first = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'cold', messages: [{ role: 'user', content: 'x' }] } });
    expect(first.status).toBe(200);
    const timing = first.headers.get('server-timing') ?? '';
    expect(timing).toMatch(/^svc;dur=\d+(\.\d+)?, load;dur=\d+(\.\d+)?$/);
    // The engine's own 300 ms load is in load;dur, not in the gateway's own time.
    expect(Number(/load;dur=([\d.]+)/.exec(timing)![1])).toBeGreaterThanOrEqual(300);
    const second = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'cold', messages: [{ role: 'user', content: 'x' }] } });
    expect(second.headers.get('server-timing')).toMatch(SERVER_TIMING);
  });
});
