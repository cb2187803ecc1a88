// omni: true with svc's own modality tools: a scripted upstream (tool_calling = true) asks for
// embed_text and route_to_chat in one round; both run in process on the built-in engine's
// slots, their answers go back to the model, and the scripted final text comes out. And
// generate_image on an image slot whose engine is the ComfyUI fixture (real PNGs), and
// text_to_speech, transcribe_audio, rerank_documents on the kokoro and moonshine fixture
// engines and a built-in reranking slot.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { api, REPO_ROOT, startGateway, type Gateway } from './helpers/gateway.js';
import { enginesToml } from './helpers/fixture-engines.js';
import { freeSlotPort } from './helpers/ports.js';
import { homeWithTinySlots } from './helpers/llama.js';
import { startScriptedUpstream, type ScriptedUpstream } from './helpers/scripted-upstream.js';

let gw: Gateway;
let upstream: ScriptedUpstream;

/** Half a second of a 440 Hz tone, 16 kHz mono WAV, as a data URL (ffmpeg makes it). */
function toneDataUrl(): string {
  const wav = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.5', '-ar', '16000', '-ac', '1', '-f', 'wav', 'pipe:1'], { encoding: 'buffer' }).stdout;
  return `data:audio/wav;base64,${wav.toString('base64')}`;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream({
    audio: { rounds: [{ tool_calls: [
      { name: 'text_to_speech', arguments: { text: 'hello there' } },
      { name: 'transcribe_audio', arguments: { audio_url: toneDataUrl() } },
      { name: 'rerank_documents', arguments: { query: 'a fox', documents: ['a red fox', 'a blue car'] } },
    ] }, { content: 'Heard, spoken and ranked.' }] },
    modal: { rounds: [{ tool_calls: [{ name: 'embed_text', arguments: { text: 'hello' } }, { name: 'route_to_chat', arguments: { prompt: 'say hi', model: 'chat' } }] }, { content: 'Both tools answered.' }] },
    plain: { rounds: [{ content: 'No tools here.' }] },
    painter: { rounds: [{ tool_calls: [{ name: 'generate_image', arguments: { prompt: 'a red fox', size: '64x64' } }] }, { content: 'Here is your fox.' }] },
  });
  const home = await homeWithTinySlots([{ name: 'chat', provider: 'builtin', contextSize: 1024 }, { name: 'embed', provider: 'builtin', type: 'embedding' }, { name: 'rank', provider: 'builtin', type: 'reranking', model: 'tiny-rerank' }]);
  home.write('svc.toml', enginesToml());
  home.write('slots/speaker.toml', `[slot]\nname = "speaker"\nport = ${await freeSlotPort()}\ntype = "tts"\nprovider = "kokoro"\ndevice = "cpu"\n`);
  home.write('slots/ears.toml', `[slot]\nname = "ears"\nport = ${await freeSlotPort()}\ntype = "transcription"\nprovider = "moonshine"\ndevice = "cpu"\n\n[model]\ndefault = "moonshine-tiny-en"\n`);
  home.write('upstreams.toml', upstream.toml('script'));
  home.write('slots/img.toml', `[slot]\nname = "img"\ntype = "image"\nprovider = "comfyui"\nprofile = "comfyui"\ndevice = "cpu"\nport = ${await freeSlotPort()}\n[model]\ndefault = "sdxl-turbo"\n[image]\ndefault_steps = 2\n`);
  const comfy = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO_ROOT, 'test/fixtures/comfyui-engine.mjs'))}`;
  gw = await startGateway(home.home, { env: { PATH: '/usr/bin:/bin', SVC_COMFYUI: comfy } });
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  upstream?.stop();
});

describe('omni with modality tools', () => {
  it('offers the modality tools whose slots exist, runs them and feeds their answers back', async () => {
    await upstream.forget();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'modal', omni: true, messages: [{ role: 'user', content: 'go' }] } });
    expect(answer.status).toBe(200);
    const body = answer.json as { choices: Array<{ message: { content: string } }>; svc_omni: { rounds: number; tool_calls: Array<{ name: string; ok: boolean }> } };
    expect(body.choices[0]!.message.content).toBe('Both tools answered.');
    expect(body.svc_omni.rounds).toBe(2);
    expect(body.svc_omni.tool_calls.map((c) => [c.name, c.ok]).sort()).toEqual([['embed_text', true], ['route_to_chat', true]]);
    const [first, second] = await upstream.requests();
    // svc's own modality tools (the bundled svc-admin server's `svc-admin__*` tools are offered beside them).
    const offered = (first!.tools as Array<{ function: { name: string } }>).map((t) => t.function.name).filter((n) => !n.includes('__')).sort();
    expect(offered).toEqual(['embed_text', 'generate_image', 'rerank_documents', 'route_to_chat', 'text_to_speech', 'transcribe_audio']);
    expect(first).not.toHaveProperty('omni');
    const results = (second!.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter((m) => m.role === 'tool');
    // The assistant turn with both calls, then one tool message per call, by its id.
    expect((second!.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(results.map((m) => m.tool_call_id).sort()).toEqual(['call_0_0', 'call_0_1']);
    expect(results.find((m) => m.tool_call_id === 'call_0_1')!.content).toMatch(/\S/); // the tiny model's answer
    const embedded = JSON.parse(results.find((m) => m.tool_call_id === 'call_0_0')!.content) as { dimensions: number; first_values: number[] };
    expect(embedded.dimensions).toBeGreaterThan(0);
    expect(embedded.first_values.length).toBe(Math.min(8, embedded.dimensions));
  }, 90_000);

  it('streams the rounds to the official openai client: svc_tool steps, one id, the final text', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'x' });
    const stream = await client.chat.completions.create({ model: 'modal', stream: true, messages: [{ role: 'user', content: 'go' }], omni: true } as never) as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>;
    let text = '';
    const ids = new Set<string>();
    const steps: Array<{ name: string; status: string }> = [];
    for await (const chunk of stream) {
      ids.add(chunk.id);
      const delta = chunk.choices[0]?.delta as { content?: string; svc_tool?: { name: string; status: string } } | undefined;
      text += delta?.content ?? '';
      if (delta?.svc_tool) steps.push(delta.svc_tool);
    }
    expect(text).toBe('Both tools answered.');
    expect(ids.size).toBe(1);
    expect(steps.filter((s) => s.status === 'running').map((s) => s.name).sort()).toEqual(['embed_text', 'route_to_chat']);
    expect(steps.filter((s) => s.status === 'done').map((s) => s.name).sort()).toEqual(['embed_text', 'route_to_chat']);
  }, 90_000);

  it('ends after one round when the model answers without calling a tool', async () => {
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'plain', omni: true, messages: [{ role: 'user', content: 'go' }] } });
    expect(answer.status).toBe(200);
    expect((answer.json as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe('No tools here.');
  }, 60_000);

  it('generates an image on the image slot: the model gets the URL of the cached PNG', async () => {
    await upstream.forget();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'painter', omni: true, messages: [{ role: 'user', content: 'paint' }] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.svc_omni.tool_calls).toEqual([expect.objectContaining({ name: 'generate_image', ok: true })]);
    const result = JSON.parse(((await upstream.requests())[1]!.messages as Array<{ content: string }>).at(-1)!.content) as { urls: string[] };
    expect(result.urls).toHaveLength(1);
    const png = await fetch(`${gw.url}${result.urls[0]}`);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
  }, 90_000);

  it('speaks, transcribes and ranks on the tts, transcription and reranking slots', async () => {
    await upstream.forget();
    const answer = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'audio', omni: true, messages: [{ role: 'user', content: 'go' }] } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.choices[0].message.content).toBe('Heard, spoken and ranked.');
    const ran = answer.json.svc_omni.tool_calls as Array<{ name: string; ok: boolean }>;
    expect(ran.map((c) => [c.name, c.ok]).sort()).toEqual([['rerank_documents', true], ['text_to_speech', true], ['transcribe_audio', true]]);
    const results = new Map(((await upstream.requests())[1]!.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content]));
    const speech = JSON.parse(results.get('call_0_0')!) as { content_type: string; bytes: number };
    expect(speech.content_type).toMatch(/^audio\//);
    expect(speech.bytes).toBeGreaterThan(0);
    expect(results.get('call_0_1')).toMatch(/^moonshine-tiny-en heard 0\.50 seconds/);
    expect((JSON.parse(results.get('call_0_2')!) as { results: unknown[] }).results).toHaveLength(2);
  }, 120_000);
});
