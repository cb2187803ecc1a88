// /v1/audio/speech on tts slots, end to end: the real gateway starts the Kokoro and
// Qwen3-TTS fixture engines (test/fixtures, real audio from espeak-ng + ffmpeg) as slot
// processes from [engines] command lines, on demand, and relays the audio they stream.
// What the engine received is proven from what it produced (format, duration) and from
// its own log lines (GET /api/slots/<name>/logs).
import { afterEach, describe, expect, it } from 'vitest';
import { coldSlot } from './helpers/boot.js';
import { api, useTempGateways, type Gateway } from './helpers/gateway.js';
import { audioToolsMissing, decodedSeconds, enginesToml, probeAudio } from './helpers/fixture-engines.js';
import { freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const MISSING = audioToolsMissing();
const { home: makeHome, gateway } = useTempGateways(afterEach);
const TEXT = 'The quick brown fox jumps over the lazy dog.';

/** A kokoro slot `speaker` with every TTS default set, a bare kokoro slot `plain`, and a qwen3tts slot `voice`. */
async function start(speakerExtra = ''): Promise<Gateway> {
  const h = makeHome();
  h.write('svc.toml', enginesToml());
  h.write('slots/speaker.toml', `[slot]\nname = "speaker"\nport = ${await freeSlotPort()}\ntype = "tts"\nprovider = "kokoro"\ndevice = "cpu"\ndefault_voice = "bf_emma"\ndefault_speed = 1.5\ndefault_response_format = "wav"\n${speakerExtra}`);
  h.write('slots/plain.toml', `[slot]\nname = "plain"\nport = ${await freeSlotPort()}\ntype = "tts"\nprovider = "kokoro"\ndevice = "cpu"\n`);
  h.write('slots/voice.toml', `[slot]\nname = "voice"\nport = ${await freeSlotPort()}\ntype = "tts"\nprovider = "qwen3tts"\ndevice = "gpu-rocm"\n`);
  return gateway(h);
}

async function speak(gw: Gateway, body: Record<string, unknown>) {
  const response = await fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, type: response.headers.get('content-type'), bytes: Buffer.from(await response.arrayBuffer()) };
}

const slotView = async (gw: Gateway, name: string) => (await api(gw.url, `/api/slots/${name}`)).json;
const speechLog = async (gw: Gateway, name: string): Promise<string[]> =>
  ((await api(gw.url, `/api/slots/${name}/logs?lines=200`)).json.lines as string[]).filter((l) => l.includes(': speech '));

describe.skipIf(MISSING)('tts slots on the Kokoro and Qwen3-TTS fixture engines', () => {
  it('a stopped kokoro slot starts on the first request; omitted fields take the slot defaults (WAV, bf_emma, 1.5)', async () => {
    const gw = await start();
    await coldSlot(gw, 'speaker'); // it started with the gateway
    expect((await slotView(gw, 'speaker')).state).toBe('stopped');
    const answer = await speak(gw, { model: 'speaker', input: TEXT });
    // The body says why when it is not 200 (a 409 was seen once in CI, cause unknown).
    expect(answer.status, answer.bytes.subarray(0, 400).toString('utf8')).toBe(200);
    // default_response_format = "wav": a RIFF/WAVE file the engine really encoded, 24 kHz mono.
    expect(answer.type).toBe('audio/wav');
    expect(answer.bytes.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(answer.bytes.subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect(probeAudio(answer.bytes)).toMatchObject({ codec: 'pcm_s16le', sampleRate: 24000, channels: 1 });
    expect(decodedSeconds(answer.bytes)).toBeGreaterThan(0.5);
    const view = await slotView(gw, 'speaker');
    expect(view).toMatchObject({ state: 'ready', model: 'kokoro' });
    expect(view.pid).toBeGreaterThan(0);
    // The engine logs what it was asked: the slot's voice and speed, the model rewritten to kokoro.
    expect(await speechLog(gw, 'speaker')).toEqual([expect.stringContaining('speech model=kokoro voice=bf_emma speed=1.5 format=wav')]);
  });

  it('fields the request sends win over the defaults; the default speed really speeds the audio up', async () => {
    const gw = await start();
    const atDefault = await speak(gw, { model: 'speaker', input: TEXT });
    const atOne = await speak(gw, { model: 'speaker', input: TEXT, speed: 1, voice: 'af_bella' });
    expect(atOne.type).toBe('audio/wav');
    // espeak at 175 words a minute, then at 1.5 times that: the same text, clearly shorter.
    expect(decodedSeconds(atDefault.bytes)).toBeLessThan(decodedSeconds(atOne.bytes) * 0.8);
    const log = await speechLog(gw, 'speaker');
    expect(log[1]).toContain('voice=af_bella speed=1 format=wav');
  });

  it('every format decodes as what its Content-Type says', async () => {
    const gw = await start();
    const cases = [
      ['mp3', 'audio/mpeg', 'mp3'], ['opus', 'audio/ogg', 'opus'], ['flac', 'audio/flac', 'flac'], ['wav', 'audio/wav', 'pcm_s16le'],
    ] as const;
    for (const [format, type, codec] of cases) {
      const answer = await speak(gw, { model: 'speaker', input: TEXT, response_format: format });
      expect(answer.type).toBe(type);
      expect(probeAudio(answer.bytes).codec).toBe(codec);
      expect(decodedSeconds(answer.bytes)).toBeGreaterThan(0.5);
    }
    const pcm = await speak(gw, { model: 'speaker', input: TEXT, response_format: 'pcm' });
    expect(pcm.type).toBe('audio/L16');
    expect(pcm.bytes.length % 2).toBe(0);
    expect(decodedSeconds(pcm.bytes, 's16le')).toBeGreaterThan(0.5);
    // A slot without defaults: the engine's own (mp3, af_bella, speed 1).
    const plain = await speak(gw, { model: 'plain', input: TEXT });
    expect(plain.type).toBe('audio/mpeg');
    expect(probeAudio(plain.bytes).codec).toBe('mp3');
    expect(await speechLog(gw, 'plain')).toEqual([expect.stringContaining('voice=af_bella speed=1 format=mp3')]);
  });

  it('the engine\'s own refusals come back with its status and message, in the envelope (unknown format, unknown voice)', async () => {
    const gw = await start();
    const format = await speak(gw, { model: 'speaker', input: TEXT, response_format: 'aac' });
    expect(format.status).toBe(400);
    const formatError = JSON.parse(format.bytes.toString()).error;
    expect(formatError).toMatchObject({ code: 'upstream.bad_request', message: expect.stringMatching(/unsupported response_format "aac"/), details: { status: 400, slot: 'speaker' } });
    expect(formatError.details.upstream.detail).toBe(formatError.message);
    const voice = await speak(gw, { model: 'speaker', input: TEXT, voice: 'nobody' });
    expect(voice.status).toBe(400);
    expect(JSON.parse(voice.bytes.toString()).error).toMatchObject({ code: 'upstream.bad_request', message: expect.stringMatching(/unknown voice "nobody"/) });
  });

  it('a speed outside 0.25-4.0 is 400 before the engine starts', async () => {
    const gw = await start();
    await coldSlot(gw, 'speaker');
    const cold = await slotView(gw, 'speaker');
    for (const speed of [0.2, 4.5]) {
      const { status, json } = await api(gw.url, '/v1/audio/speech', { method: 'POST', body: { model: 'speaker', input: TEXT, speed } });
      expect(status).toBe(400);
      expect(json.error.code).toBe('request.invalid');
      expect(json.error.details.problems[0].path).toBe('speed');
    }
    expect(await slotView(gw, 'speaker')).toMatchObject({ state: 'stopped', pid: null, started_at: cold.started_at });
  });

  it('a qwen3tts slot: its profile\'s default voice (Ryan), the language field, speed through atempo', async () => {
    const gw = await start();
    const answer = await speak(gw, { model: 'svc/voice', input: 'Bonjour tout le monde.', language: 'French', response_format: 'flac', speed: 2 });
    expect(answer.status).toBe(200);
    expect(probeAudio(answer.bytes)).toMatchObject({ codec: 'flac', sampleRate: 24000 });
    expect(await slotView(gw, 'voice')).toMatchObject({ state: 'ready', model: 'qwen3-tts' });
    expect(await speechLog(gw, 'voice')).toEqual([expect.stringContaining('speech model=qwen3-tts voice=Ryan speed=2 format=flac')]);
  });

  it('a slow engine: the request is held while the slot warms (model_loaded false), then answered', async () => {
    const gw = await start('[server]\nextra_args = "--slow-start 1500"\n');
    const answer = await speak(gw, { model: 'speaker', input: TEXT });
    expect(answer.status).toBe(200);
    expect(answer.type).toBe('audio/wav');
    const rows = (await api(gw.url, '/api/activity?action=slot.state&target=speaker&order=asc')).json.items as Array<{ message: string }>;
    expect(rows.map((r) => r.message.split(':')[0])).toEqual(['stopped -> starting', 'starting -> warming', 'warming -> ready']);
  });

  it('an engine that crashes is restarted, and the slot serves again', async () => {
    const gw = await start('[server]\nextra_args = "--crash-after 1"\n');
    expect((await speak(gw, { model: 'speaker', input: TEXT })).status).toBe(200);
    const first = await slotView(gw, 'speaker');
    // The fixture exits right after its first answer; the supervisor restarts it.
    const back = await waitFor(() => slotView(gw, 'speaker'), { what: 'the restart', until: (v) => v.state === 'ready' && v.restarts >= 1 && v.pid !== first.pid, timeout: 30_000 });
    expect(back.last_error).toBeNull();
    const again = await speak(gw, { model: 'speaker', input: TEXT });
    expect(again.status).toBe(200);
    expect(probeAudio(again.bytes).codec).toBe('pcm_s16le');
  });
});
