// POST /v1/images/generations through the real gateway to an image slot whose engine is the
// ComfyUI fixture (test/fixtures/comfyui-engine.mjs: ComfyUI's HTTP API, real PNGs), and the
// GPU arbiter between that slot and LLM GPU slots (fault engines standing in for
// llama-server, which needs no GPU to show who gets stopped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homeWithFaultSlots, type FaultHome } from './helpers/faults.js';
import { api, REPO_ROOT, useTempGateways, type Gateway } from './helpers/gateway.js';
import { freeSlotPort } from './helpers/ports.js';
import { waitFor } from './helpers/wait.js';

const { gateway: start } = useTempGateways(afterEach);
const COMFY = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(REPO_ROOT, 'test/fixtures/comfyui-engine.mjs'))}`;

/** An image slot `img` (ComfyUI fixture, its knobs in extra_args) beside fault-engine LLM slots. */
async function homeWithImageSlot(options: { device?: string; image?: string; knobs?: string; llms?: Array<{ name: string; device: string }> } = {}): Promise<FaultHome & { env: Record<string, string> }> {
  const home = await homeWithFaultSlots(options.llms ?? []);
  const knobs = options.knobs ? `[server]\nextra_args = ${JSON.stringify(options.knobs)}\n` : '';
  home.write('slots/img.toml', `[slot]\nname = "img"\ntype = "image"\nprovider = "comfyui"\nprofile = "comfyui"\ndevice = "${options.device ?? 'cpu'}"\nport = ${await freeSlotPort()}\n[model]\ndefault = "sdxl-turbo"\n${knobs}[image]\n${options.image ?? ''}\n`);
  return { ...home, env: { ...home.env, SVC_COMFYUI: COMFY } };
}

const generate = (gw: Gateway, body: Record<string, unknown>) => api(gw.url, '/v1/images/generations', { method: 'POST', body });
const status = async (gw: Gateway) => (await api(gw.url, '/api/status')).json;
const slot = async (gw: Gateway, name: string) => (await api(gw.url, `/api/slots/${name}`)).json;
const ihdr = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];

/** The workflows the fixture received, from its log lines (one JSON object per prompt). */
async function workflows(gw: Gateway): Promise<Array<Record<string, { inputs: Record<string, unknown> }>>> {
  const lines = (await api(gw.url, '/api/slots/img/logs?lines=200')).json.lines as string[];
  return lines.filter((l) => l.startsWith('{"prompt"')).map((l) => (JSON.parse(l) as { prompt: Record<string, { inputs: Record<string, unknown> }> }).prompt);
}

describe('POST /v1/images/generations on a ComfyUI slot', () => {
  it('starts the slot, runs the workflow with the slot defaults, caches the PNG and serves it', async () => {
    const home = await homeWithImageSlot({ image: 'default_size = "96x64"\ndefault_steps = 3' });
    const gw = await start(home, { env: home.env });
    const answer = await generate(gw, { model: 'sdxl-turbo', prompt: 'a red fox', seed: 11 });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.created).toBeGreaterThan(1_700_000_000);
    expect(answer.json.data).toHaveLength(1);
    const url = answer.json.data[0].url as string;
    expect(url).toMatch(/^\/api\/images\/cache\/[0-9a-f-]{36}\.png$/);
    expect(answer.json._hal0).toMatchObject({ model: 'sdxl-turbo', upstream: { slot: 'img' }, meta: { width: 96, height: 64, steps: 3, seed: 11, checkpoint: 'sd_xl_turbo_1.0_fp16.safetensors' } });

    const image = await fetch(`${gw.url}${url}`);
    expect(image.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await image.arrayBuffer());
    expect(ihdr(png)).toEqual([96, 64]);
    expect(readFileSync(join(home.stateRoot, 'images/cache', url.split('/').pop()!)).equals(png)).toBe(true);

    const [graph] = await workflows(gw);
    expect(graph!['5']!.inputs).toEqual({ width: 96, height: 64, batch_size: 1 });
    expect(graph!['3']!.inputs).toMatchObject({ steps: 3, seed: 11, sampler_name: 'euler_ancestral' });
    expect(graph!['6']!.inputs.text).toBe('a red fox');
  }, 30_000);

  it('answers b64_json for n images of the asked size, by slot name too', async () => {
    const home = await homeWithImageSlot();
    const gw = await start(home, { env: home.env });
    const answer = await generate(gw, { model: 'img', prompt: 'two owls', n: 2, size: '130x70', response_format: 'b64_json' });
    expect(answer.status, answer.text).toBe(200);
    const pngs = (answer.json.data as Array<{ b64_json: string }>).map((d) => Buffer.from(d.b64_json, 'base64'));
    expect(pngs.map(ihdr)).toEqual([[128, 64], [128, 64]]); // rounded down to multiples of 8
    expect(pngs[0]!.equals(pngs[1]!)).toBe(false);
  }, 30_000);

  it('errors: no prompt 422, a model that is not curated 404, a checkpoint ComfyUI lacks 422, a cache miss 404', async () => {
    const home = await homeWithImageSlot({ knobs: '--checkpoints sd_xl_turbo_1.0_fp16.safetensors' });
    const gw = await start(home, { env: home.env });
    const noPrompt = await generate(gw, { model: 'sdxl-turbo' });
    expect([noPrompt.status, noPrompt.json.error.code]).toEqual([422, 'image.prompt_required']);
    const dalle = await generate(gw, { model: 'dall-e-3', prompt: 'x' });
    expect([dalle.status, dalle.json.error.code]).toEqual([404, 'image.model_not_curated']);
    expect(dalle.json.error.details.curated).toContain('sdxl-turbo');
    const missing = await generate(gw, { model: 'sd-1.5-pruned-emaonly', prompt: 'x', size: '64x64' });
    expect([missing.status, missing.json.error.code]).toEqual([422, 'image.workflow_invalid']);
    expect(JSON.stringify(missing.json.error.details.node_errors)).toContain('v1-5-pruned-emaonly.safetensors');
    for (const name of ['nope.png', '..%2F..%2Fsvc.toml', '00000000-0000-0000-0000-000000000000.png']) {
      const miss = await api(gw.url, `/api/images/cache/${name}`);
      expect([miss.status, miss.json.error.code]).toEqual([404, 'image.cache_miss']);
    }
  }, 30_000);
});

describe('no image slot', () => {
  it('a curated model says that no image slot serves it, naming the model asked for and how to create one', async () => {
    const home = await homeWithFaultSlots([{ name: 'chat' }]);
    const gw = await start(home, { env: home.env });
    const curated = await generate(gw, { model: 'sdxl-turbo', prompt: 'a red fox' });
    expect(curated.status).toBe(404);
    expect(curated.json.error).toEqual({
      code: 'dispatch.no_route',
      message: 'no image slot serves the curated image model sdxl-turbo; create one with `svc slot create <name> --type image -m sdxl-turbo`',
      details: { model: 'sdxl-turbo', route: 'images', needs: 'image slot' },
    });
    // No model at all means svc/image: the same, about svc/image.
    const any = await generate(gw, { prompt: 'a red fox' });
    expect(any.status).toBe(404);
    expect(any.json.error).toMatchObject({ code: 'dispatch.no_route', details: { model: 'svc/image' } });
    expect(any.json.error.message).toContain('no image slot serves svc/image');
    // A model that is not curated is still that.
    expect((await generate(gw, { model: 'dall-e-3', prompt: 'x' })).json.error.code).toBe('image.model_not_curated');
  }, 30_000);
});

describe('the GPU arbiter', () => {
  it('image mode stops the LLM slots on the GPU; an LLM request brings them back; idle_restore_minutes applies live', async () => {
    const home = await homeWithImageSlot({
      device: 'gpu-rocm',
      knobs: '--step-ms 1500', // 3 s per image: time for the checks made while it generates
      llms: [{ name: 'chat', device: 'gpu-rocm' }, { name: 'embedder', device: 'gpu-rocm' }, { name: 'cpuchat', device: 'cpu' }],
    });
    const gw = await start(home, { env: home.env });
    for (const name of ['chat', 'embedder', 'cpuchat']) expect((await api(gw.url, `/api/slots/${name}/load`, { method: 'POST' })).status).toBe(200);
    const cpuPid = (await slot(gw, 'cpuchat')).pid;
    expect((await status(gw)).gpu.mode).toBe('inference');

    // An image request while generating holds the GPU: a chat request meanwhile gets 503.
    const image = generate(gw, { model: 'sdxl-turbo', prompt: 'x', size: '64x64', steps: 2 });
    // Before it is in flight, image mode stops two llama-server slots and starts the image
    // engine: under a loaded CI run that took over 15 s once, so the deadline is generous.
    await waitFor(() => slot(gw, 'img'), { what: 'the image request to be in flight', until: (view) => view.in_flight === 1, interval: 25, timeout: 60_000 });
    const gpu = (await status(gw)).gpu;
    expect([gpu.mode, gpu.image_slot, gpu.stopped_slots]).toEqual(['image', 'img', ['chat', 'embedder']]);
    expect(gpu.idle_restore_minutes).toBe(60);
    expect([(await slot(gw, 'chat')).state, (await slot(gw, 'embedder')).state]).toEqual(['stopped', 'stopped']);
    expect((await slot(gw, 'cpuchat')).pid).toBe(cpuPid);
    const busy = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [] } });
    expect([busy.status, busy.json.error.code, busy.headers.get('retry-after')]).toEqual([503, 'gpu.image_mode', '5']);
    expect((await image).status).toBe(200);

    // idle_restore_minutes is read live: edit the file, reload, the restore time moves; the image slot keeps running.
    const imgPid = (await slot(gw, 'img')).pid;
    const file = join(home.configRoot, 'slots/img.toml');
    home.write('slots/img.toml', readFileSync(file, 'utf8').replace('[image]\n', '[image]\nidle_restore_minutes = 5\n'));
    expect((await api(gw.url, '/api/settings/reload', { method: 'POST' })).status).toBe(200);
    const moved = (await status(gw)).gpu;
    expect(moved.idle_restore_minutes).toBe(5);
    expect(Date.parse(moved.restore_at) - Date.parse(moved.last_image_use_at)).toBe(5 * 60_000);
    expect((await slot(gw, 'img')).pid).toBe(imgPid);

    // A chat request takes the GPU back: the image slot stops, both LLM slots come back.
    const chat = await api(gw.url, '/v1/chat/completions', { method: 'POST', body: { model: 'chat', messages: [] } });
    expect(chat.status, chat.text).toBe(200);
    expect((await status(gw)).gpu).toMatchObject({ mode: 'inference', image_slot: null, stopped_slots: [] });
    expect((await slot(gw, 'img')).state).toBe('stopped');
    await waitFor(() => slot(gw, 'embedder'), { what: 'the embedder to be ready again', until: (view) => view.state === 'ready' });
    const switches = (await api(gw.url, '/api/activity?action=gpu.mode')).json;
    expect(JSON.stringify(switches)).toMatch(/image mode for img/);
  }, 120_000);
});
