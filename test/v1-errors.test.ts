// Error answers through the real gateway (docs/errors.md, "Engine and upstream errors"): a
// remote upstream's own errors (a real HTTP server in this process) reach the client in
// svc's envelope with the upstream's status, and a successful stream is relayed byte for
// byte; on a stream whose keep-alive head already went out (the fault engine, slow to
// load), an engine's error or a failed start is one SSE error event, then the end.
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

const OPENAI_401 = { error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' } };
const PROXY_502 = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n';
/** A stream with odd spacing and a comment: relayed as it is, or the test sees the difference. */
const STREAM = ': hello\n\ndata: {"choices":[{"delta":{"content":"a"}}]}\n\ndata:{"choices":[{"delta":{"content":"b"}}]}\n\ndata: [DONE]\n\n';

/** The remote: the chat answer depends on the model asked for. */
async function remote(): Promise<string> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      const model = (JSON.parse(text) as { model: string }).model;
      if (model === 'keyed') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(OPENAI_401));
      } else if (model === 'proxied') {
        res.writeHead(502, { 'content-type': 'text/html' }).end(PROXY_502);
      } else if (model === 'busy') {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '12' }).end('{"error":{"message":"slow down","type":"rate_limit"}}');
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // In pieces, the first one split in the middle of an event.
        res.write(STREAM.slice(0, 20));
        setTimeout(() => res.end(STREAM.slice(20)), 20);
      }
    });
  });
  remotes.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

async function gatewayWithRemote() {
  const h = makeHome();
  h.write('upstreams.toml', `[upstreams.far]\nbase_url = "${await remote()}"\nmodels = ["keyed", "proxied", "busy", "fine"]\n`);
  return gateway(h);
}

describe('a remote upstream that answers an error', () => {
  it('401 with an OpenAI error: the envelope, the status kept, the original body in details.upstream', async () => {
    const gw = await gatewayWithRemote();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'keyed', messages: [{ role: 'user', content: 'x' }] } });
    expect(answer.status).toBe(401);
    expect(answer.json).toEqual({ error: { code: 'upstream.unauthorized', message: 'bad key', details: { status: 401, upstream_name: 'far', upstream: OPENAI_401 } } });
  });

  it('502 text/html from a proxy: the envelope, its text as the message', async () => {
    const gw = await gatewayWithRemote();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'proxied', messages: [], stream: true } });
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.json).toEqual({
      error: {
        code: 'upstream.error',
        message: '502 Bad Gateway 502 Bad Gateway nginx',
        details: { status: 502, upstream_name: 'far', upstream: PROXY_502, content_type: 'text/html', truncated: false },
      },
    });
  });

  it("429 keeps the upstream's Retry-After", async () => {
    const gw = await gatewayWithRemote();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'busy', messages: [] } });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('12');
    expect(answer.json.error).toMatchObject({ code: 'upstream.rate_limited', message: 'slow down' });
  });

  it('a 2xx stream is relayed byte for byte', async () => {
    const gw = await gatewayWithRemote();
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'fine', messages: [], stream: true }) });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(STREAM);
  });
});

/** The parts of an SSE body: comments and data events, in order (blank lines skipped). */
const sseParts = (text: string) => text.split('\n\n').filter((part) => part.trim() !== '').map((part) => part.trim());

describe('a stream whose keep-alive head went out before the failure', () => {
  const ask = (gw: { url: string }, model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }) });

  it("the engine's error answer becomes exactly one SSE error event with the envelope, then the end", async () => {
    // Healthy after 1.5 s: the 200 head and a keep-alive comment go out at 1 s, then the engine answers 500.
    const home = await homeWithFaultSlots([{ name: 'grumpy', knobs: '--load-ms 1500 --chat-status 500' }]);
    const gw = await gateway(home, { env: home.env });
    const response = await ask(gw, 'grumpy');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const parts = sseParts(await response.text());
    expect(parts[0]).toBe(': svc: loading slot grumpy');
    const events = parts.filter((p) => !p.startsWith(':'));
    expect(events).toHaveLength(1);
    expect(parts.at(-1)).toBe(events[0]);
    expect(JSON.parse(events[0]!.slice('data: '.length))).toEqual({
      error: {
        code: 'upstream.error',
        message: 'fault-engine: chat answered 500 on cue',
        details: { status: 500, slot: 'grumpy', upstream: { error: { code: 500, message: 'fault-engine: chat answered 500 on cue', type: 'server_error' } } },
      },
    });
  }, 30_000);

  it('a 4xx likewise', async () => {
    const home = await homeWithFaultSlots([{ name: 'picky', knobs: '--load-ms 1500 --chat-status 400' }]);
    const gw = await gateway(home, { env: home.env });
    const parts = sseParts(await (await ask(gw, 'picky')).text());
    expect(parts[0]).toBe(': svc: loading slot picky');
    const events = parts.filter((p) => !p.startsWith(':'));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.slice('data: '.length)).error).toMatchObject({ code: 'upstream.bad_request', details: { status: 400, slot: 'picky' } });
  }, 30_000);

  it("a slot whose start fails after the head: one error event with the slot's error, then the end", async () => {
    // Still loading when it exits at 3 s: the head went out at 1 s.
    const home = await homeWithFaultSlots([{ name: 'fragile', knobs: '--load-ms 10000 --exit-after-ms 3000' }]);
    const gw = await gateway(home, { env: home.env });
    const response = await ask(gw, 'fragile');
    expect(response.status).toBe(200);
    const parts = sseParts(await response.text());
    expect(parts[0]).toBe(': svc: loading slot fragile');
    const events = parts.filter((p) => !p.startsWith(':'));
    expect(events).toHaveLength(1);
    expect(parts.at(-1)).toBe(events[0]);
    const envelope = JSON.parse(events[0]!.slice('data: '.length)) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(envelope.error.code).toBe('slot.load_failed');
    expect(envelope.error.message).toContain('engine exited while loading');
    expect(envelope.error.details.slot).toBe('fragile');
  }, 30_000);
});
