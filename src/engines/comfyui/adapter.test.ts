import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../../test/helpers/launch-context.js';
import { SEED_PROFILES } from '../../config/profiles.js';
import { comfyUiAdapter, comfyVolumes, createComfyUiAdapter } from './adapter.js';
import { probeSystemStats } from './health.js';

const bin = fakeBin(['python3', 'podman']);
afterAll(() => bin.remove());
const adapter = createComfyUiAdapter({ hostDevices: () => HOST_DEVICES, exists: (p) => p.endsWith('extra_model_paths.yaml') });
const image = (over: Partial<ContextInput> = {}) => launchContext({
  ...over,
  slot: { name: 'img', type: 'image', device: 'gpu-rocm', provider: 'comfyui', port: 8188, ...over.slot },
  svc: { engines: { comfyui: 'python3 /opt/ComfyUI/main.py' }, ...over.svc },
  env: { PATH: bin.dir, ...over.env },
  modelStore: '/store',
});
const FLAGS = ['--disable-mmap', '--bf16-vae', '--cache-none'];

describe('comfyui adapter', () => {
  it('process: python main.py --listen 127.0.0.1 --port <slot port> and the comfyui profile flags', async () => {
    const spec = await adapter.launch(image({ server: { extra_args: '--cpu' } }));
    expect(spec).toMatchObject({ mode: 'process', command: bin.path('python3'), baseUrl: 'http://127.0.0.1:8188' });
    expect(spec.args).toEqual(['/opt/ComfyUI/main.py', '--listen', '127.0.0.1', '--port', '8188', ...FLAGS, '--cpu']);
  });

  it('container: host network and IPC (nothing published, listening on 127.0.0.1), GPU access, its folders, bash -lc main.py', async () => {
    const spec = await adapter.launch(image({ svc: { engines: { runtime: 'podman' }, slots: { publish_host: '0.0.0.0' } } }));
    expect(spec).toMatchObject({ mode: 'container', command: bin.path('podman'), baseUrl: 'http://127.0.0.1:8188' });
    expect(spec.args).toEqual([
      'run', '--rm', '--name=svc-slot-img', '--replace', '--log-driver=none', '--network=host', '--ipc=host',
      '--device=/dev/kfd', '--device=/dev/dri/card0', '--device=/dev/dri/renderD128', '--group-add=110', '--group-add=44',
      '--security-opt=apparmor=unconfined', '--security-opt=seccomp=unconfined', '--security-opt=label=disable',
      '--volume=/store:/store:ro,z', '--volume=/store/comfyui/models:/root/comfy-models:z',
      '--volume=/store/comfyui/output:/opt/ComfyUI/output:z', '--volume=/store/comfyui/input:/opt/ComfyUI/input:z',
      '--volume=/store/comfyui/user:/opt/ComfyUI/user:z', '--volume=/store/comfyui/custom_nodes:/opt/ComfyUI/custom_nodes:z',
      '--volume=/store/comfyui/extra_model_paths.yaml:/opt/ComfyUI/extra_model_paths.yaml:ro,z',
      '--entrypoint=bash', SEED_PROFILES.comfyui!.image,
      '-lc', `cd /opt/ComfyUI && exec python main.py --listen 127.0.0.1 --port 8188 ${FLAGS.join(' ')}`,
    ]);
  });

  it('extra_model_paths.yaml is mounted only when it exists; shell words in flags are quoted', async () => {
    expect(comfyVolumes('/s', () => false).map((v) => v.target)).not.toContain('/opt/ComfyUI/extra_model_paths.yaml');
    const spec = await adapter.launch(image({ svc: { engines: { runtime: 'podman' } }, server: { extra_args: `--output-directory '/opt/ComfyUI/my out'` } }));
    expect(spec.args.at(-1)).toMatch(/--output-directory '\/opt\/ComfyUI\/my out'$/);
  });

  it('image slots only; serves sdxl-turbo by default; without a command slot.binary_missing', async () => {
    await expect(adapter.launch(image({ slot: { type: 'llm' } }))).rejects.toMatchObject({ code: 'slot.config_error' });
    expect(comfyUiAdapter.defaultModelId!(image().slot.config)).toBe('sdxl-turbo');
    await expect(adapter.launch(image({ svc: { engines: { comfyui: '' } } }))).rejects.toMatchObject({ code: 'slot.binary_missing', message: /SVC_COMFYUI/ });
  });
});

describe('comfyui health: GET /system_stats', () => {
  const servers: Server[] = [];
  afterAll(() => servers.forEach((s) => s.close()));

  it('200 with system.python_version is ready; another answer is loading; no answer is down', async () => {
    let body: unknown = { error: 'starting' };
    let status = 503;
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const signal = new AbortController().signal;
    expect(await probeSystemStats(base, signal)).toBe('loading');
    status = 200;
    body = { system: {} };
    expect(await probeSystemStats(base, signal)).toBe('loading');
    body = { system: { os: 'posix', python_version: '3.12.3', comfyui_version: '0.3.40' }, devices: [] };
    expect(await comfyUiAdapter.health(`${base}/`, signal)).toBe('ready');
    expect(new Set(seen)).toEqual(new Set(['/system_stats']));
    expect(await probeSystemStats('http://127.0.0.1:1', signal)).toBe('down');
  });
});
