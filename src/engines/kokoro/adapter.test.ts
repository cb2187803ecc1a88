import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { createKokoroAdapter, kokoroAdapter } from './adapter.js';

const bin = fakeBin(['kokoro_server', 'docker']);
afterAll(() => bin.remove());
const adapter = createKokoroAdapter({ hostDevices: () => HOST_DEVICES });
const tts = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'speaker', type: 'tts', device: 'cpu', provider: 'kokoro', port: 8084, ...over.slot },
  svc: { engines: { kokoro: bin.path('kokoro_server') }, ...over.svc },
  env: { PATH: bin.dir, ...over.env },
});
const SEED_FLAGS = ['--model_path', '/mnt/ai-models/local/kokoro-v1/kokoro-onnx'];

describe('kokoro adapter, process mode', () => {
  it('[engines].kokoro, then the tts profile flags, then --host 127.0.0.1 --port <slot port>', async () => {
    const spec = await adapter.launch(tts());
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('kokoro_server'), baseUrl: 'http://127.0.0.1:8084' });
    expect(spec.args).toEqual([...SEED_FLAGS, '--host', '127.0.0.1', '--port', '8084']);
  });

  it('a registry model or [model].path replaces the profile\'s --model_path; extra_args come last and win', async () => {
    const spec = await adapter.launch(tts({ resolved: { id: 'kokoro', path: '/models/kokoro-v2' }, server: { extra_args: '--threads 2' } }));
    expect(spec.args).toEqual(['--model_path', '/models/kokoro-v2', '--host', '127.0.0.1', '--port', '8084', '--threads', '2']);
    expect(spec.baseUrl).toBe('http://127.0.0.1:8084');
  });

  it('SVC_KOKORO when [engines].kokoro is empty; neither: slot.binary_missing saying how to set it', async () => {
    const viaEnv = await adapter.launch(tts({ svc: { engines: { kokoro: '' } }, env: { SVC_KOKORO: `${bin.path('kokoro_server')} --log-level debug` } }));
    expect(viaEnv.args.slice(0, 2)).toEqual(['--log-level', 'debug']);
    await expect(adapter.launch(tts({ svc: { engines: { kokoro: '' } } }))).rejects.toMatchObject({
      code: 'slot.binary_missing', message: /Set \[engines\]\.kokoro in svc\.toml .*SVC_KOKORO/,
    });
  });

  it('[server].env reaches the engine; the gateway\'s SVC_* do not', async () => {
    const spec = await adapter.launch(tts({ server: { env: { KOKORO_THREADS: '2' } }, env: { SVC_AUTH_ENABLED: '1' } }));
    expect(spec.env).toEqual({ PATH: bin.dir, HOME: '/home/svc', KOKORO_THREADS: '2' });
  });

  it('serves tts only; the model id is kokoro', async () => {
    await expect(adapter.launch(tts({ slot: { type: 'llm' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    expect(kokoroAdapter.defaultModelId!(tts().slot.config)).toBe('kokoro');
    expect(kokoroAdapter.serves).toEqual(['tts']);
  });
});

describe('kokoro adapter, container mode', () => {
  it('the tts image, no devices (even on a GPU slot), the store mounted, profile flags then 0.0.0.0 and the port', async () => {
    const spec = await adapter.launch(tts({ slot: { device: 'gpu-rocm', profile: 'tts' }, svc: { engines: { runtime: 'docker' }, slots: { publish_host: '10.0.0.2' } } }));
    expect(spec.mode).toBe('container');
    expect(spec.command).toBe(bin.path('docker'));
    expect(spec.args).toEqual([
      'run', '--rm', '--name=svc-slot-speaker', '--log-driver=none', '--volume=/mnt/ai-models:/mnt/ai-models:ro,z',
      '--publish=10.0.0.2:8084:8084', SEED_PROFILES.tts!.image, ...SEED_FLAGS, '--host', '0.0.0.0', '--port', '8084',
    ]);
    expect(spec.baseUrl).toBe('http://10.0.0.2:8084');
  });
});

describe('kokoro health', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('GET /health: model_loaded false is loading, true is ready', async () => {
    let loaded = false;
    const server = createServer((req, res) => res.writeHead(req.url === '/health' ? 200 : 404).end(JSON.stringify({ status: loaded ? 'ok' : 'loading', model_loaded: loaded, default_voice: 'af_bella' })));
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await kokoroAdapter.health(base, new AbortController().signal)).toBe('loading');
    loaded = true;
    expect(await kokoroAdapter.health(base, new AbortController().signal)).toBe('ready');
  });
});
