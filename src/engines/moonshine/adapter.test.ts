import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { createMoonshineAdapter, moonshineAdapter, moonshineArch, MOONSHINE_DEFAULT_IMAGE } from './adapter.js';

const bin = fakeBin(['python3', 'podman']);
afterAll(() => bin.remove());
const adapter = createMoonshineAdapter({ hostDevices: () => HOST_DEVICES });
const stt = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'ears', type: 'transcription', device: 'cpu', provider: 'moonshine', port: 8089, ...over.slot },
  svc: { engines: { moonshine: 'python3 /opt/moonshine/moonshine_server.py' }, ...over.svc },
  resolved: { id: 'moonshine-small_streaming-en', ...over.resolved },
  env: { PATH: bin.dir, ...over.env },
});

describe('moonshineArch', () => {
  it('reads the architecture from moonshine-<arch>-en; other ids leave it to the server', () => {
    expect(moonshineArch('moonshine-tiny-en')).toBe('tiny');
    expect(moonshineArch('moonshine-small_streaming-en')).toBe('small_streaming');
    expect(moonshineArch('moonshine-huge-en')).toBeNull();
    expect(moonshineArch('whisper')).toBeNull();
  });
});

describe('moonshine adapter', () => {
  it('process: --model_arch from the model id, 127.0.0.1 and the port; no llama-server flags from the cpu device default', async () => {
    const spec = await adapter.launch(stt({ resolved: { id: 'moonshine-tiny-en' } }));
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('python3'), baseUrl: 'http://127.0.0.1:8089' });
    expect(spec.args).toEqual(['/opt/moonshine/moonshine_server.py', '--model_arch', 'tiny', '--host', '127.0.0.1', '--port', '8089']);
  });

  it('a model file gives --model_path; extra_args override', async () => {
    const spec = await adapter.launch(stt({ resolved: { path: '/models/moonshine/small' }, server: { extra_args: '--model_arch base' } }));
    expect(spec.args).toEqual(['/opt/moonshine/moonshine_server.py', '--model_path', '/models/moonshine/small', '--host', '127.0.0.1', '--port', '8089', '--model_arch', 'base']);
  });

  it('container: the moonshine image, CPU only (no devices on a GPU slot), a model outside the store mounted read-only', async () => {
    const spec = await adapter.launch(stt({ slot: { device: 'gpu-rocm' }, resolved: { path: '/models/moonshine/small' }, svc: { engines: { runtime: 'podman' } } }));
    expect(spec.args).toEqual([
      'run', '--rm', '--name=svc-slot-ears', '--replace', '--log-driver=none',
      '--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--volume=/models/moonshine:/models/moonshine:ro,z',
      '--publish=127.0.0.1:8089:8089', MOONSHINE_DEFAULT_IMAGE,
      '--model_path', '/models/moonshine/small', '--model_arch', 'small_streaming', '--host', '0.0.0.0', '--port', '8089',
    ]);
  });

  it('without a command: slot.binary_missing; transcription only; default model moonshine-small_streaming-en', async () => {
    await expect(adapter.launch(stt({ svc: { engines: { moonshine: '' } } }))).rejects.toMatchObject({ code: 'slot.binary_missing', message: /SVC_MOONSHINE/ });
    await expect(adapter.launch(stt({ slot: { type: 'tts' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    expect(moonshineAdapter.defaultModelId!(stt().slot.config)).toBe('moonshine-small_streaming-en');
  });
});

describe('moonshine health', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('GET /health {status, model_loaded}: loading until the model is loaded', async () => {
    let loaded = false;
    const server = createServer((_req, res) => res.writeHead(200).end(JSON.stringify({ status: loaded ? 'ok' : 'loading', model_loaded: loaded, model_arch: 'tiny', model_id: 'moonshine-tiny-en' })));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await moonshineAdapter.health(base, new AbortController().signal)).toBe('loading');
    loaded = true;
    expect(await moonshineAdapter.health(base, new AbortController().signal)).toBe('ready');
  });
});
