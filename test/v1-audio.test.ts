// /v1/audio/speech and /v1/audio/transcriptions through the built gateway: the required
// `model`, resolution errors, a tts slot whose engine does not exist yet, and, to prove the
// forwarding, a local HTTP server acting as a remote OpenAI-compatible audio upstream
// (upstreams.toml) that records exactly what it receives and answers binary audio.
// Default injection for tts slots is unit-tested in src/dispatch/speech.test.ts and proven
// on a running engine in tts-engines.test.ts.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { api, useTempGateways, type TempHome } from './helpers/gateway.js';
import { freeSlotPort } from './helpers/ports.js';

const { home: makeHome, gateway } = useTempGateways(afterEach);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => { s.closeAllConnections(); s.close(r); })));
});

/** 64 KiB of every byte value, in a fixed pseudo-random order: "audio" no text codec survives. */
const AUDIO = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 2654435761) >>> 24));

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The remote: speech answers AUDIO as audio/mpeg in 4 KiB chunks; transcriptions answer JSON. */
async function audioUpstream(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/v1/audio/speech') {
        if ((JSON.parse(body.toString()) as { voice?: string }).voice === 'nobody') {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"detail":"unknown voice nobody"}');
          return;
        }
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'x-engine': 'fixture' });
        for (let at = 0; at < AUDIO.length; at += 4096) res.write(AUDIO.subarray(at, at + 4096));
        res.end();
      } else if (req.url === '/v1/audio/transcriptions') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'hello there', bytes: body.length }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received };
}

/** Remote upstreams `voice` (voice-1) and `ears` (stt-1), and a kokoro tts slot `speaker`. */
async function homeWith(upstreamUrl: string, svcToml?: string): Promise<TempHome> {
  const h = makeHome();
  h.write('upstreams.toml', `[upstreams.voice]\nbase_url = "${upstreamUrl}"\nmodels = ["voice-1"]\n\n[upstreams.ears]\nbase_url = "${upstreamUrl}"\nmodels = ["stt-1"]\n`);
  h.write('slots/speaker.toml', `[slot]\nname = "speaker"\nport = ${await freeSlotPort()}\ntype = "tts"\nprovider = "kokoro"\ndevice = "cpu"\ndefault_voice = "af_bella"\ndefault_speed = 1.5\ndefault_response_format = "wav"\n`);
  if (svcToml !== undefined) h.write('svc.toml', svcToml);
  return h;
}

/** A multipart body built by hand, CRLF line ends, with the given parts. */
function multipart(boundary: string, parts: Array<{ name: string; value: string | Buffer; filename?: string }>): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `Content-Disposition: form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"\r\nContent-Type: audio/wav` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\n${disposition}\r\n\r\n`), Buffer.from(p.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** What `fetch` would send for a FormData body: its bytes and its Content-Type (boundary). */
async function serialise(form: FormData): Promise<{ bytes: Buffer; contentType: string }> {
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { bytes: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/** What an OpenAI client sends besides the body: a bearer (any value in default mode). */
const CLIENT = { authorization: 'Bearer sk-anything' };

async function post(url: string, body: Buffer | string | FormData, contentType?: string, headers: Record<string, string> = CLIENT) {
  const response = await fetch(url, { method: 'POST', body, headers: { ...headers, ...(contentType && { 'content-type': contentType }) } });
  const bytes = Buffer.from(await response.arrayBuffer());
  let json: { error: { code: string; message: string; details: Record<string, unknown> } } | undefined;
  try {
    json = JSON.parse(bytes.toString());
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, json };
}

describe('POST /v1/audio/speech', () => {
  it('without a model: 400 request.missing_model (absent or empty)', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    for (const body of [{ input: 'hello', voice: 'af_bella' }, { model: '', input: 'hello' }, { model: null, input: 'hello' }]) {
      const { status, json } = await api(gw.url, '/v1/audio/speech', { method: 'POST', body });
      expect(status).toBe(400);
      expect(json.error.code).toBe('request.missing_model');
      expect(json.error.message).toMatch(/`model` is required on \/v1\/audio\/speech/);
    }
  });

  it('an unknown model: 404 model.not_found; a non-object body: 400', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    const unknown = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: { model: 'voice-2', input: 'hello' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('model.not_found');
    expect(unknown.json.error.details.candidates).toContain('voice-1');
    const list = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: ['x'] });
    expect(list.status).toBe(400);
    expect(list.json.error.code).toBe('request.not_an_object');
  });

  it('a tts slot whose engine has no command configured answers slot.binary_missing saying how to set it', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    for (const model of ['speaker', 'svc/tts']) {
      const { status, json } = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: { model, input: 'hello' } });
      expect(status).toBe(503);
      expect(json.error.code).toBe('slot.binary_missing');
      expect(json.error.message).toMatch(/Set \[engines\]\.kokoro in svc\.toml/);
      expect(json.error.details.slot).toBe('speaker');
    }
    // A route the slot type does not serve is refused before any of that.
    const wrong = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'speaker', messages: [] } });
    expect(wrong.json.error.code).toBe('dispatch.wrong_slot_type');
    expect(wrong.json.error.message).toBe('slot speaker is a tts slot; this route needs an llm slot');
  });

  it('a speed outside 0.25-4.0 is 400 request.invalid naming speed', async () => {
    const remote = await audioUpstream();
    const gw = await gateway(await homeWith(remote.url));
    for (const speed of [0.1, 4.5, 'fast']) {
      const { status, json } = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: { model: 'voice-1', input: 'hi', speed } });
      expect(status).toBe(400);
      expect(json.error.code).toBe('request.invalid');
      expect(json.error.details.problems[0].path).toBe('speed');
    }
    // Before any slot is started or any upstream asked.
    const slotted = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: { model: 'speaker', input: 'hi', speed: 9 } });
    expect(slotted.json.error.code).toBe('request.invalid');
    expect(remote.received).toHaveLength(0);
  });

  it('is forwarded to a remote upstream as sent, and its audio comes back byte for byte', async () => {
    const remote = await audioUpstream();
    const gw = await gateway(await homeWith(remote.url));
    const request = { model: 'voice-1', input: 'The quick brown fox.', voice: 'alloy', response_format: 'mp3', speed: 1 };
    const answer = await post(`${gw.url}/v1/audio/speech`, JSON.stringify(request), 'application/json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('audio/mpeg');
    expect(answer.headers.get('x-engine')).toBe('fixture');
    expect(answer.bytes.equals(AUDIO)).toBe(true);
    expect(remote.received).toHaveLength(1);
    const [got] = remote.received;
    expect(got!.method).toBe('POST');
    expect(got!.url).toBe('/v1/audio/speech');
    expect(got!.headers['content-type']).toBe('application/json');
    // A remote target gets no slot defaults: the body is what the client sent.
    expect(got!.body.toString()).toBe(JSON.stringify(request));
  });

  it("keeps an upstream error's status and message, in svc's envelope with its body under details.upstream", async () => {
    const remote = await audioUpstream();
    const gw = await gateway(await homeWith(remote.url));
    const answer = await post(`${gw.url}/v1/audio/speech`, JSON.stringify({ model: 'voice-1', input: 'x', voice: 'nobody' }), 'application/json');
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.bytes.toString())).toEqual({
      error: { code: 'upstream.bad_request', message: 'unknown voice nobody', details: { status: 400, upstream_name: 'voice', upstream: { detail: 'unknown voice nobody' } } },
    });
  });
});

describe('POST /v1/audio/transcriptions', () => {
  it('without a model field: 400 request.missing_model (hand-built multipart, FormData, empty field, no body)', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    const url = `${gw.url}/v1/audio/transcriptions`;
    const boundary = '----svc-test-boundary-7MA4YWxkTrZu0gW';
    const byHand = await post(url, multipart(boundary, [{ name: 'file', value: AUDIO.subarray(0, 1000), filename: 'a.wav' }, { name: 'language', value: 'en' }]), `multipart/form-data; boundary=${boundary}`);
    expect(byHand.status).toBe(400);
    expect(byHand.json?.error.code).toBe('request.missing_model');
    expect(byHand.json?.error.message).toMatch(/`model` is required on \/v1\/audio\/transcriptions/);

    const form = new FormData();
    form.append('file', new Blob([AUDIO.subarray(0, 1000)], { type: 'audio/wav' }), 'a.wav');
    const viaFormData = await post(url, form);
    expect(viaFormData.status).toBe(400);
    expect(viaFormData.json?.error.code).toBe('request.missing_model');

    const empty = await post(url, multipart(boundary, [{ name: 'model', value: '' }]), `multipart/form-data; boundary=${boundary}`);
    expect(empty.json?.error.code).toBe('request.missing_model');

    const nothing = await fetch(url, { method: 'POST', headers: CLIENT });
    expect(nothing.status).toBe(400);
    expect(((await nothing.json()) as { error: { code: string } }).error.code).toBe('request.missing_model');

    // Without a bearer or an X- header (curl -F in default mode): no browser header says a page sent it, so it is served.
    const tool = await post(url, form, undefined, {});
    expect([tool.status, tool.json?.error.code]).toEqual([400, 'request.missing_model']);
    // The same post marked by a browser as a page elsewhere's is what a web form sends: refused before it is read.
    const formLike = await post(url, form, undefined, { 'sec-fetch-site': 'same-site' });
    expect([formLike.status, formLike.json?.error.code]).toEqual([403, 'request.form_post']);
  });

  it('an unknown model: 404 model.not_found; a tts slot: 400 dispatch.wrong_slot_type', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    const form = new FormData();
    form.append('model', 'stt-2');
    form.append('file', new Blob([AUDIO.subarray(0, 100)]), 'a.wav');
    const unknown = await post(`${gw.url}/v1/audio/transcriptions`, form);
    expect(unknown.status).toBe(404);
    expect(unknown.json?.error.code).toBe('model.not_found');
    expect(unknown.json?.error.details.candidates).toContain('stt-1');
    form.set('model', 'speaker');
    const wrong = await post(`${gw.url}/v1/audio/transcriptions`, form);
    expect(wrong.status).toBe(400);
    expect(wrong.json?.error.code).toBe('dispatch.wrong_slot_type');
  });

  it('takes only multipart: JSON is 415, a multipart type without a boundary is 400; other routes still refuse multipart', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1'));
    const json = await api(gw.url, '/v1/audio/transcriptions', { method: 'POST', body: { model: 'stt-1' } });
    expect(json.status).toBe(415);
    expect(json.json.error.code).toBe('request.unsupported_media_type');
    const noBoundary = await post(`${gw.url}/v1/audio/transcriptions`, 'x', 'multipart/form-data');
    expect(noBoundary.status).toBe(400);
    expect(noBoundary.json?.error.code).toBe('request.invalid');
    const form = new FormData();
    form.append('model', 'voice-1');
    const elsewhere = await post(`${gw.url}/v1/audio/speech`, form);
    expect(elsewhere.status).toBe(415);
    expect(elsewhere.json?.error.code).toBe('request.unsupported_media_type');
  });

  it('a body over [api].max_body_mb is 413 request.too_large', async () => {
    const gw = await gateway(await homeWith('http://127.0.0.1:1/v1', '[api]\nmax_body_mb = 1\n'));
    const boundary = 'big-boundary';
    const big = multipart(boundary, [{ name: 'model', value: 'stt-1' }, { name: 'file', value: Buffer.alloc(1536 * 1024, 7), filename: 'big.wav' }]);
    const answer = await post(`${gw.url}/v1/audio/transcriptions`, big, `multipart/form-data; boundary=${boundary}`);
    expect(answer.status).toBe(413);
    expect(answer.json?.error.code).toBe('request.too_large');
  });

  it('forwards the multipart bytes verbatim with the original Content-Type to a remote upstream', async () => {
    const remote = await audioUpstream();
    const gw = await gateway(await homeWith(remote.url));
    const form = new FormData();
    form.append('file', new Blob([AUDIO], { type: 'audio/wav' }), 'clip.wav');
    form.append('model', 'stt-1');
    form.append('response_format', 'json');
    const { bytes, contentType } = await serialise(form);
    const answer = await post(`${gw.url}/v1/audio/transcriptions`, bytes, contentType);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(answer.bytes.toString())).toEqual({ text: 'hello there', bytes: bytes.length });
    expect(remote.received).toHaveLength(1);
    const [got] = remote.received;
    expect(got!.url).toBe('/v1/audio/transcriptions');
    expect(got!.headers['content-type']).toBe(contentType);
    expect(got!.body.equals(bytes)).toBe(true);

    // The same through fetch with the FormData itself, and with a hand-built body (model first).
    const direct = await post(`${gw.url}/v1/audio/transcriptions`, form);
    expect(direct.status).toBe(200);
    const boundary = 'hand-made';
    const byHand = multipart(boundary, [{ name: 'model', value: 'stt-1' }, { name: 'file', value: AUDIO, filename: 'clip.wav' }]);
    await post(`${gw.url}/v1/audio/transcriptions`, byHand, `multipart/form-data; boundary=${boundary}`);
    expect(remote.received).toHaveLength(3);
    expect(remote.received[1]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(remote.received[2]!.headers['content-type']).toBe(`multipart/form-data; boundary=${boundary}`);
    expect(remote.received[2]!.body.equals(byHand)).toBe(true);
  });
});
