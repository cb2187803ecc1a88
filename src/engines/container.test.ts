import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Device } from '../config/schema/common.js';
import { containerArgs, containerMounts, FALLBACK_GIDS, probeHostDevices, type ContainerInput, type HostDevices } from './container.js';

const HOST: HostDevices = { kfd: true, dri: ['/dev/dri/card0', '/dev/dri/renderD128'], gids: { render: 110, video: 44 } };
const ARGV = ['--model', '/mnt/ai-models/q.gguf', '--host', '0.0.0.0', '--port', '8081'];

const input = (over: Partial<ContainerInput> = {}): ContainerInput => ({
  runtime: 'podman', slotName: 'chat', image: 'ghcr.io/x/llama:server', device: 'gpu-rocm', gpuIndex: null,
  publishHost: '127.0.0.1', port: 8081, modelStore: '/mnt/ai-models', files: ['/mnt/ai-models/q.gguf'], env: {}, argv: ARGV, host: HOST, ...over,
});

const HEAD = ['run', '--rm', '--name=svc-slot-chat', '--replace', '--log-driver=none'];
const TAIL = ['--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--publish=127.0.0.1:8081:8081', 'ghcr.io/x/llama:server', ...ARGV];
const SECURITY = ['--security-opt=apparmor=unconfined', '--security-opt=seccomp=unconfined'];

describe('containerArgs per device', () => {
  it('rocm: /dev/kfd and every /dev/dri node, render and video groups', () => {
    expect(containerArgs(input())).toEqual([
      ...HEAD, '--device=/dev/kfd', '--device=/dev/dri/card0', '--device=/dev/dri/renderD128',
      '--group-add=110', '--group-add=44', ...SECURITY, ...TAIL,
    ]);
  });

  it('rocm with gpu_index: HIP and ROCR visibility as --env', () => {
    const args = containerArgs(input({ gpuIndex: 1, env: { HIP_VISIBLE_DEVICES: '1', ROCR_VISIBLE_DEVICES: '1' } }));
    expect(args).toContain('--env=HIP_VISIBLE_DEVICES=1');
    expect(args).toContain('--env=ROCR_VISIBLE_DEVICES=1');
    expect(args.indexOf('--env=HIP_VISIBLE_DEVICES=1')).toBeLessThan(args.indexOf('ghcr.io/x/llama:server'));
  });

  it('rocm falls back to /dev/kfd and /dev/dri when the host shows neither', () => {
    const args = containerArgs(input({ host: { kfd: false, dri: [], gids: HOST.gids } }));
    expect(args.filter((a) => a.startsWith('--device='))).toEqual(['--device=/dev/kfd', '--device=/dev/dri']);
  });

  it('vulkan: /dev/dri nodes only, render and video groups', () => {
    const args = containerArgs(input({ device: 'gpu-vulkan', gpuIndex: 2, env: { GGML_VK_VISIBLE_DEVICES: '2' } }));
    expect(args).toEqual([
      ...HEAD, '--device=/dev/dri/card0', '--device=/dev/dri/renderD128', '--group-add=110', '--group-add=44', ...SECURITY,
      '--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--env=GGML_VK_VISIBLE_DEVICES=2', ...TAIL.slice(1),
    ]);
  });

  it('cuda: the CDI device, all GPUs or the pinned one, no groups', () => {
    const all = containerArgs(input({ device: 'gpu-cuda' }));
    expect(all).toEqual([...HEAD, '--device=nvidia.com/gpu=all', ...TAIL]);
    const pinned = containerArgs(input({ device: 'gpu-cuda', gpuIndex: 3, env: { CUDA_VISIBLE_DEVICES: '0' } }));
    expect(pinned).toContain('--device=nvidia.com/gpu=3');
    expect(pinned).toContain('--env=CUDA_VISIBLE_DEVICES=0');
    expect(pinned.some((a) => a.startsWith('--group-add'))).toBe(false);
  });

  it('cpu: no devices, groups or security options', () => {
    for (const gpuIndex of [null, 0]) expect(containerArgs(input({ device: 'cpu', gpuIndex }))).toEqual([...HEAD, ...TAIL]);
  });

  it('npu: the accel node and render node, the render group, unlimited memlock', () => {
    for (const gpuIndex of [null, 1]) {
      expect(containerArgs(input({ device: 'npu', gpuIndex }))).toEqual([
        ...HEAD, '--device=/dev/accel/accel0', '--device=/dev/dri/renderD128', '--group-add=110', ...SECURITY, '--ulimit=memlock=-1', ...TAIL,
      ]);
    }
  });

  it('docker has no --replace; publish_host and IPv6 are honoured', () => {
    const args = containerArgs(input({ runtime: 'docker', device: 'cpu', publishHost: '::1' }));
    expect(args.slice(0, 4)).toEqual(['run', '--rm', '--name=svc-slot-chat', '--log-driver=none']);
    expect(args).toContain('--publish=[::1]:8081:8081');
    expect(containerArgs(input({ device: 'cpu', publishHost: '0.0.0.0' }))).toContain('--publish=0.0.0.0:8081:8081');
  });

  it('every device kind yields a command ending in image and argv', () => {
    for (const device of ['gpu-rocm', 'gpu-vulkan', 'gpu-cuda', 'cpu', 'npu'] as Device[]) {
      expect(containerArgs(input({ device })).slice(-ARGV.length - 1)).toEqual(['ghcr.io/x/llama:server', ...ARGV]);
    }
  });
});

describe('containerMounts', () => {
  it('mounts the store, plus the folders of files outside it, once each', () => {
    expect(containerMounts('/store', ['/store/a/m.gguf', '/other/m.gguf', '/other/mmproj.gguf', '/tpl/t.jinja'])).toEqual([
      '--volume=/store:/store:ro,z', '--volume=/other:/other:ro,z', '--volume=/tpl:/tpl:ro,z',
    ]);
    expect(containerMounts('', ['/other/m.gguf'])).toEqual(['--volume=/other:/other:ro,z']);
    expect(containerMounts('/store', ['/storefront/m.gguf'])).toContain('--volume=/storefront:/storefront:ro,z');
  });
});

describe('probeHostDevices', () => {
  it('reads /etc/group for the gids and falls back when absent', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-devs-'));
    try {
      expect(probeHostDevices(root)).toEqual({ kfd: false, dri: [], gids: { ...FALLBACK_GIDS } });
      await mkdir(join(root, 'etc'));
      await mkdir(join(root, 'dev/dri'), { recursive: true });
      await writeFile(join(root, 'dev/dri/card0'), ''); // a plain file, not a device node
      await writeFile(join(root, 'etc/group'), 'root:x:0:\nvideo:x:39:svc\nrender:x:105:svc\n');
      expect(probeHostDevices(root)).toEqual({ kfd: false, dri: [], gids: { render: 105, video: 39 } });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('containerArgs for engines beyond llama-server', () => {
  it('host network and IPC, an entrypoint, extra security options and read-write volumes', () => {
    const args = containerArgs(input({
      device: 'gpu-rocm', network: 'host', ipc: 'host', entrypoint: 'bash', securityOpts: ['seccomp=unconfined', 'label=disable'],
      volumes: [{ source: '/store/comfyui/output', target: '/opt/ComfyUI/output', mode: 'rw' }, { source: '/store/comfyui/x.yaml', target: '/opt/ComfyUI/x.yaml', mode: 'ro' }],
      argv: ['-lc', 'exec python main.py'],
    }));
    expect(args).toEqual([
      ...HEAD, '--network=host', '--ipc=host', '--device=/dev/kfd', '--device=/dev/dri/card0', '--device=/dev/dri/renderD128',
      '--group-add=110', '--group-add=44', ...SECURITY, '--security-opt=label=disable',
      '--volume=/mnt/ai-models:/mnt/ai-models:ro,z', '--volume=/store/comfyui/output:/opt/ComfyUI/output:z', '--volume=/store/comfyui/x.yaml:/opt/ComfyUI/x.yaml:ro,z',
      '--entrypoint=bash', 'ghcr.io/x/llama:server', '-lc', 'exec python main.py',
    ]);
    // On the host network nothing is published.
    expect(args.some((a) => a.startsWith('--publish'))).toBe(false);
  });

  it('security options of a cpu container are only the ones asked for', () => {
    const args = containerArgs(input({ device: 'cpu', securityOpts: ['label=disable'] }));
    expect(args.filter((a) => a.startsWith('--security-opt'))).toEqual(['--security-opt=label=disable']);
    expect(args).toContain('--publish=127.0.0.1:8081:8081');
  });
});
