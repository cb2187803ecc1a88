// Tools that are not browsers are served in default mode (docs/auth.md, "Default mode on a
// network", rule 3): `curl -X POST …/api/slots/chat/load` (no Content-Type, no body) and the
// OpenAI docs' `curl -F file=@a.wav -F model=… …/v1/audio/transcriptions` (multipart, no
// Authorization), from this host with curl's own bytes and from a LAN client (a network
// namespace of this test's own). The same posts carrying a browser's marks of a page on
// another origin are still refused, and change nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type Gateway, startGateway } from './helpers/gateway.js';
import { homeWithFaultSlots } from './helpers/faults.js';
import { type Lan, lanSkipReason, openLan } from './helpers/lan.js';
import { wireRequest } from './helpers/raw-http.js';

const skip = lanSkipReason();
let gateway: Gateway;
let lan: Lan;
let upstream: Server;
/** The multipart bodies the transcription upstream received. */
const received: string[] = [];

const BOUNDARY = '------------------------c1a2b3d4e5f6a7b8';
/** What curl -F file=@a.wav -F model=stt-1 sends as the body (a text "recording": the LAN client sends strings). */
const MULTIPART = [
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....WAVEfmt not really audio\r\n`,
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nstt-1\r\n`,
  `--${BOUNDARY}--\r\n`,
].join('');
const CURL = { 'user-agent': 'curl/8.5.0', accept: '*/*' };

/** Exactly what curl sends for `curl -X POST <url>` and `curl -F … <url>`, with its Host. */
const curlPost = (path: string, multipart = false) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${gateway.port}\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n`
  + (multipart ? `Content-Length: ${Buffer.byteLength(MULTIPART)}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\n\r\n${MULTIPART}` : '\r\n');

const slotState = async () => (await api(gateway.url, '/api/slots/chat')).json.state as string;

beforeAll(async () => {
  if (skip) return;
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"hello from the upstream"}');
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const home = await homeWithFaultSlots([{ name: 'chat' }], { 'svc.toml': '[slots]\nstart_at_boot = false\n' });
  home.write('upstreams.toml', `[upstreams.ears]\nbase_url = "http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1"\nmodels = ["stt-1"]\n`);
  [gateway, lan] = await Promise.all([startGateway(home.home, { args: ['--host', '0.0.0.0'], env: home.env }), openLan()]);
}, 60_000);
afterAll(async () => {
  lan?.close();
  await gateway?.stop();
  upstream?.close();
});

describe.skipIf(skip)(`POSTs from tools in default mode ${skip ?? ''}`, () => {
  it('serves curl -X POST and curl -F from this host, byte for byte as curl sends them', async () => {
    const load = await wireRequest(gateway.port, curlPost('/api/slots/chat/load'));
    expect([load.status, load.json?.state ?? load.json?.error?.code]).toEqual([200, 'ready']);
    const unload = await wireRequest(gateway.port, curlPost('/api/slots/chat/unload'));
    expect(unload.status).toBe(200);
    const transcribed = await wireRequest(gateway.port, curlPost('/v1/audio/transcriptions', true));
    expect([transcribed.status, transcribed.json]).toEqual([200, { text: 'hello from the upstream' }]);
    expect(received.at(-1)).toBe(MULTIPART);
  });

  it('serves the same posts from a LAN client', async () => {
    const url = lan.url(gateway.port);
    // No Content-Type and an empty body (curl -X POST sends no body; this client says Content-Length: 0).
    const load = await lan.request(`${url}/api/slots/chat/load`, { method: 'POST', headers: CURL, raw: '' });
    expect([load.status, load.json?.state ?? load.json?.error?.code]).toEqual([200, 'ready']);
    const unload = await lan.request(`${url}/api/slots/chat/unload`, { method: 'POST', headers: CURL, raw: '' });
    expect(unload.status).toBe(200);
    const transcribed = await lan.request(`${url}/v1/audio/transcriptions`, { method: 'POST', headers: { ...CURL, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, raw: MULTIPART });
    expect([transcribed.status, transcribed.json]).toEqual([200, { text: 'hello from the upstream' }]);
    expect(received.at(-1)).toBe(MULTIPART);
  });

  it('still refuses them, from the LAN and from this host, when a browser marks them as a page elsewhere\'s', async () => {
    const url = lan.url(gateway.port);
    const before = received.length;
    for (const [marks, code] of [
      [{ origin: 'null' }, 'request.cross_site'],
      [{ origin: 'http://attacker.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, 'request.cross_site'],
      [{ 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' }, 'request.form_post'],
      [{ referer: 'http://attacker.example/cats.html' }, 'request.form_post'],
      [{ 'upgrade-insecure-requests': '1' }, 'request.form_post'],
    ] as const) {
      const load = await lan.request(`${url}/api/slots/chat/load`, { method: 'POST', headers: { ...CURL, ...marks }, raw: '' });
      expect([load.status, load.json?.error?.code], JSON.stringify(marks)).toEqual([403, code]);
      const multipart = { ...CURL, ...marks, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
      const fromLan = await lan.request(`${url}/v1/audio/transcriptions`, { method: 'POST', headers: multipart, raw: MULTIPART });
      expect([fromLan.status, fromLan.json?.error?.code], JSON.stringify(marks)).toEqual([403, code]);
      const fromHost = await wireRequest(gateway.port, curlPost('/v1/audio/transcriptions', true).replace('Accept: */*\r\n', `Accept: */*\r\n${Object.entries(marks).map(([k, v]) => `${k}: ${v}\r\n`).join('')}`));
      expect([fromHost.status, fromHost.json?.error?.code], JSON.stringify(marks)).toEqual([403, code]);
    }
    expect(received.length).toBe(before);
    expect(await slotState()).not.toMatch(/^(starting|warming|ready)$/);
  });
});
