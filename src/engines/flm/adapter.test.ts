import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { createFlmAdapter, flmAdapter, flmTag, FLM_CONTAINER_ENV } from './adapter.js';

const bin = fakeBin(['flm', 'podman', 'opt/flm-wrapper']);
afterAll(() => bin.remove());
const adapter = createFlmAdapter({ hostDevices: () => HOST_DEVICES });
const npuSlot = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'npu', type: 'llm', device: 'npu', provider: 'flm', port: 8088, ...over.slot },
  model: { default: 'llama3.2:1b', ...over.model },
  env: { PATH: bin.dir, ...over.env },
});

describe('flmTag', () => {
  it('keeps FLM tags and maps catalogue ids <family>-<size>-FLM to family:size', () => {
    expect(flmTag('llama3.2:1b')).toBe('llama3.2:1b');
    expect(flmTag('gemma4-it-e2b-FLM')).toBe('gemma4-it:e2b');
    expect(flmTag('qwen3-0.6b-FLM')).toBe('qwen3:0.6b');
    expect(flmTag('plain')).toBe('plain');
  });
});

describe('flm adapter, process mode', () => {
  it('runs `flm serve <tag>` on 127.0.0.1 with the slot port and the default context', async () => {
    const spec = await adapter.launch(npuSlot());
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('flm'), baseUrl: 'http://127.0.0.1:8088' });
    expect(spec.args).toEqual(['serve', 'llama3.2:1b', '--host', '127.0.0.1', '--port', '8088', '--ctx-len', '8192']);
    expect(spec.env).toEqual({ PATH: bin.dir, HOME: '/home/svc' });
  });

  it('[npu].embed / [npu].asr add --embed 1 / --asr 1; context_size and extra_args apply, extra_args last', async () => {
    const spec = await adapter.launch(npuSlot({ model: { context_size: 4096 }, npu: { embed: true, asr: true }, server: { extra_args: '--pmode turbo' } }));
    expect(spec.args).toEqual(['serve', 'llama3.2:1b', '--host', '127.0.0.1', '--port', '8088', '--ctx-len', '4096', '--embed', '1', '--asr', '1', '--pmode', 'turbo']);
    expect(spec.baseUrl).toBe('http://127.0.0.1:8088');
  });

  it('[engines].flm (or SVC_FLM) is the program and its leading words', async () => {
    const spec = await adapter.launch(npuSlot({ svc: { engines: { flm: `${bin.path('opt/flm-wrapper')} --quiet` } } }));
    expect(spec.command).toBe(bin.path('opt/flm-wrapper'));
    expect(spec.args.slice(0, 3)).toEqual(['--quiet', 'serve', 'llama3.2:1b']);
    const none = npuSlot({ env: { PATH: '/nonexistent' } });
    await expect(adapter.launch(none)).rejects.toMatchObject({ code: 'slot.binary_missing', message: /\[engines\]\.flm/ });
  });

  it('refuses shadows (they run in the anchor\'s engine) and slot types it does not serve', async () => {
    await expect(adapter.launch(npuSlot({ slot: { type: 'embedding' } }))).rejects.toMatchObject({ code: 'slot.config_error', message: /never on its own/ });
    await expect(adapter.launch(npuSlot({ slot: { type: 'tts', device: 'cpu' } }))).rejects.toMatchObject({ code: 'slot.config_error', message: /flm does not serve tts/ });
  });

  it('its default model ids: none for the llm, FLM\'s embedding and ASR models for shadows', () => {
    expect(flmAdapter.defaultModelId!(npuSlot().slot.config)).toBe('');
    expect(flmAdapter.defaultModelId!(npuSlot({ slot: { type: 'embedding' } }).slot.config)).toBe('embed-gemma:300m');
    expect(flmAdapter.defaultModelId!(npuSlot({ slot: { type: 'transcription' } }).slot.config)).toBe('whisper-v3:turbo');
  });
});

describe('flm adapter, container mode', () => {
  it('tini -- flm serve inside the flm image with the NPU devices, FLM\'s environment and models folder', async () => {
    const spec = await adapter.launch(npuSlot({ svc: { engines: { runtime: 'podman' } }, npu: { asr: true } }));
    expect(spec).toMatchObject({ mode: 'container', command: bin.path('podman'), baseUrl: 'http://127.0.0.1:8088' });
    const image = SEED_PROFILES.flm!.image;
    expect(spec.args).toEqual([
      'run', '--rm', '--name=svc-slot-npu', '--replace', '--log-driver=none',
      '--device=/dev/accel/accel0', '--device=/dev/dri/renderD128', '--group-add=110',
      '--security-opt=apparmor=unconfined', '--security-opt=seccomp=unconfined', '--ulimit=memlock=-1',
      '--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--volume=/mnt/ai-models/flm/models:/var/lib/svc/.config/flm/models:z',
      ...Object.entries(FLM_CONTAINER_ENV).map(([k, v]) => `--env=${k}=${v}`),
      '--publish=127.0.0.1:8088:8088', '--entrypoint=tini', image,
      '--', 'flm', 'serve', 'llama3.2:1b', '--host', '0.0.0.0', '--port', '8088', '--ctx-len', '8192', '--asr', '1',
    ]);
  });
});

describe('flm health', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('FLM has no /health: its /v1/models decides (200 ready, else loading); no answer is down', async () => {
    let modelsStatus = 503;
    const server = createServer((req, res) => res.writeHead(req.url === '/v1/models' ? modelsStatus : 404).end('{}'));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const signal = new AbortController().signal;
    expect(await flmAdapter.health(base, signal)).toBe('loading');
    modelsStatus = 200;
    expect(await flmAdapter.health(base, signal)).toBe('ready');
    expect(await flmAdapter.health('http://127.0.0.1:1', signal)).toBe('down');
  });
});
