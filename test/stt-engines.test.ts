// /v1/audio/transcriptions on a transcription slot, end to end: the real gateway starts the
// Moonshine fixture engine (test/fixtures/moonshine-engine.mjs: it parses the multipart
// body and decodes the audio with ffmpeg) as the slot's process, on demand, and forwards
// the client's multipart bytes verbatim. The fixture logs the SHA-256 of every body it
// receives, which is how the tests see that not one byte changed.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { coldSlot } from './helpers/boot.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';
import { audioToolsMissing, enginesToml } from './helpers/fixture-engines.js';
import { freeSlotPort } from './helpers/ports.js';

const MISSING = audioToolsMissing();
const { home: makeHome, gateway } = useTempGateways(afterEach);

/** 1.5 s of a 440 Hz tone as 16 kHz mono WAV, made by ffmpeg. */
function tone(seconds = 1.5): Buffer {
  const result = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-ar', '16000', '-ac', '1', '-f', 'wav', 'pipe:1'], { encoding: 'buffer' });
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return result.stdout;
}

/** A moonshine slot `ears` serving moonshine-tiny-en. */
async function start(): Promise<Gateway> {
  const h = makeHome();
  h.write('svc.toml', enginesToml());
  h.write('slots/ears.toml', `[slot]\nname = "ears"\nport = ${await freeSlotPort()}\ntype = "transcription"\nprovider = "moonshine"\ndevice = "cpu"\n\n[model]\ndefault = "moonshine-tiny-en"\n`);
  return gateway(h);
}

/** What fetch sends for a FormData: its bytes and Content-Type, so a test knows them exactly. */
async function multipart(fields: Record<string, string | { bytes: Buffer; name: string; type: string }>): Promise<{ bytes: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value);
    else form.append(key, new Blob([value.bytes], { type: value.type }), value.name);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { bytes: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

async function transcribe(gw: Gateway, body: { bytes: Buffer; contentType: string }) {
  // As an OpenAI client sends it: a bearer (any value in default mode) beside the multipart body.
  const response = await fetch(`${gw.url}/v1/audio/transcriptions`, { method: 'POST', headers: { 'content-type': body.contentType, authorization: 'Bearer sk-anything' }, body: body.bytes });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const slotView = async (gw: Gateway) => (await api(gw.url, '/api/slots/ears')).json;
const engineLog = async (gw: Gateway): Promise<string[]> => ((await api(gw.url, '/api/slots/ears/logs?lines=200')).json.lines as string[]).filter((l) => l.includes('transcription:'));

describe.skipIf(MISSING)('a transcription slot on the Moonshine fixture engine', () => {
  it('starts on demand and gets the multipart bytes verbatim; the answer is what the engine decoded', async () => {
    const gw = await start();
    await coldSlot(gw, 'ears'); // it started with the gateway
    expect((await slotView(gw)).state).toBe('stopped');
    const audio = tone(1.5);
    const body = await multipart({ model: 'ears', file: { bytes: audio, name: 'tone.wav', type: 'audio/wav' }, response_format: 'verbose_json' });
    const answer = await transcribe(gw, body);
    expect(answer.status).toBe(200);
    const json = JSON.parse(answer.text);
    // The slot's model id picked the engine's architecture (--model_arch tiny).
    expect(json.text).toBe(`moonshine-tiny-en heard 1.50 seconds of pcm_s16le audio at 16000 Hz in ${audio.length} bytes.`);
    expect(json).toMatchObject({ task: 'transcribe', duration: 1.5 });
    expect(await slotView(gw)).toMatchObject({ state: 'ready', model: 'moonshine-tiny-en' });
    const [line] = await engineLog(gw);
    expect(line).toContain(`body ${body.bytes.length} bytes sha256=${sha256(body.bytes)}`);
    expect(line).toContain(`content-type=${body.contentType}`);
    expect(line).toContain(`model=ears file=tone.wav ${audio.length} bytes sha256=${sha256(audio)}`);
  });

  it('json and text answers; svc/stt and the model id reach the same slot', async () => {
    const gw = await start();
    const file = { bytes: tone(0.5), name: 'a.wav', type: 'audio/wav' };
    const json = await transcribe(gw, await multipart({ model: 'svc/stt', file }));
    expect(json.type).toBe('application/json');
    expect(JSON.parse(json.text)).toEqual({ text: expect.stringMatching(/^moonshine-tiny-en heard 0\.50 seconds/) });
    const text = await transcribe(gw, await multipart({ model: 'moonshine-tiny-en', file, response_format: 'text' }));
    expect(text.type).toMatch(/^text\/plain/);
    expect(text.text).toMatch(/^moonshine-tiny-en heard 0\.50 seconds of pcm_s16le audio/);
    expect(await engineLog(gw)).toHaveLength(2);
  });

  it('a missing model is 400 request.missing_model, and no engine is started for it', async () => {
    const gw = await start();
    await coldSlot(gw, 'ears');
    const answer = await transcribe(gw, await multipart({ file: { bytes: tone(0.5), name: 'a.wav', type: 'audio/wav' } }));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error.code).toBe('request.missing_model');
    expect(await slotView(gw)).toMatchObject({ state: 'stopped', pid: null });
  });

  it('the engine refuses an empty upload (400) and bytes that are not audio (415): its codes are not svc\'s, so they come under details.upstream', async () => {
    const gw = await start();
    const empty = await transcribe(gw, await multipart({ model: 'ears', file: { bytes: Buffer.alloc(0), name: 'empty.wav', type: 'audio/wav' } }));
    expect(empty.status).toBe(400);
    expect(JSON.parse(empty.text).error).toMatchObject({ code: 'upstream.bad_request', details: { status: 400, slot: 'ears', upstream: { error: { code: 'audio.empty_upload' } } } });
    const notAudio = await transcribe(gw, await multipart({ model: 'ears', file: { bytes: Buffer.from('this is not audio, just text\n'.repeat(40)), name: 'notes.wav', type: 'audio/wav' } }));
    expect(notAudio.status).toBe(415);
    expect(JSON.parse(notAudio.text).error).toMatchObject({
      code: 'upstream.client_error', message: expect.stringContaining('notes.wav'), details: { status: 415, upstream: { error: { code: 'audio.unsupported_format' } } },
    });
  });
});
