import { describe, expect, it } from 'vitest';
import { baseEnvironment, gpuVisibilityEnv, processEnv, slotEnv } from './env.js';

const GATEWAY = {
  PATH: '/usr/bin', HOME: '/home/svc', LANG: 'C.UTF-8', TZ: 'UTC', LC_ALL: 'C', LD_LIBRARY_PATH: '/opt/rocm/lib',
  HSA_OVERRIDE_GFX_VERSION: '11.5.1', XDG_RUNTIME_DIR: '/run/user/1000',
  SVC_AUTH_ENABLED: '1', SVC_LLAMA_SERVER: '/x/llama-server', LLAMA_ARG_CTX_SIZE: '4096', AWS_SECRET_ACCESS_KEY: 'no', EDITOR: 'vi',
};

describe('baseEnvironment', () => {
  it('keeps the process basics and GPU runtime variables, and drops SVC_*, LLAMA_ARG_* and the rest', () => {
    expect(baseEnvironment(GATEWAY)).toEqual({
      PATH: '/usr/bin', HOME: '/home/svc', LANG: 'C.UTF-8', TZ: 'UTC', LC_ALL: 'C', LD_LIBRARY_PATH: '/opt/rocm/lib',
      HSA_OVERRIDE_GFX_VERSION: '11.5.1', XDG_RUNTIME_DIR: '/run/user/1000',
    });
  });
});

describe('gpuVisibilityEnv', () => {
  it('sets the variable of each backend from gpu_index', () => {
    expect(gpuVisibilityEnv('gpu-rocm', 1, 'process')).toEqual({ HIP_VISIBLE_DEVICES: '1', ROCR_VISIBLE_DEVICES: '1' });
    expect(gpuVisibilityEnv('gpu-vulkan', 2, 'process')).toEqual({ GGML_VK_VISIBLE_DEVICES: '2' });
    expect(gpuVisibilityEnv('gpu-cuda', 3, 'process')).toEqual({ CUDA_VISIBLE_DEVICES: '3' });
  });

  it('is 0 for CUDA in a container (CDI exposes only GPU n) and the index for the others', () => {
    expect(gpuVisibilityEnv('gpu-cuda', 3, 'container')).toEqual({ CUDA_VISIBLE_DEVICES: '0' });
    expect(gpuVisibilityEnv('gpu-rocm', 3, 'container')).toEqual({ HIP_VISIBLE_DEVICES: '3', ROCR_VISIBLE_DEVICES: '3' });
  });

  it('sets nothing without an index, or on cpu and npu', () => {
    expect(gpuVisibilityEnv('gpu-rocm', null, 'process')).toEqual({});
    expect(gpuVisibilityEnv('cpu', 0, 'process')).toEqual({});
    expect(gpuVisibilityEnv('npu', 0, 'process')).toEqual({});
  });
});

describe('precedence', () => {
  it('base < gpu_index < [server].env', () => {
    const env = processEnv({ ...GATEWAY, HIP_VISIBLE_DEVICES: '0,1' }, {
      device: 'gpu-rocm', gpuIndex: 1, serverEnv: { ROCR_VISIBLE_DEVICES: '0', PATH: '/opt/bin', GGML_CUDA_NO_PINNED: '1' },
    });
    expect(env.HIP_VISIBLE_DEVICES).toBe('1');
    expect(env.ROCR_VISIBLE_DEVICES).toBe('0');
    expect(env.PATH).toBe('/opt/bin');
    expect(env.GGML_CUDA_NO_PINNED).toBe('1');
    expect(env.SVC_AUTH_ENABLED).toBeUndefined();
  });

  it('passes the gateway\'s GPU narrowing through when the slot has no index', () => {
    expect(processEnv({ ...GATEWAY, HIP_VISIBLE_DEVICES: '0,1' }, { device: 'gpu-rocm', gpuIndex: null, serverEnv: null }).HIP_VISIBLE_DEVICES).toBe('0,1');
  });

  it('slotEnv (what a container gets) has only GPU visibility and [server].env', () => {
    expect(slotEnv({ device: 'gpu-cuda', gpuIndex: 2, serverEnv: { A: 'b' }, mode: 'container' })).toEqual({ CUDA_VISIBLE_DEVICES: '0', A: 'b' });
    expect(slotEnv({ device: 'gpu-cuda', gpuIndex: 2, serverEnv: { CUDA_VISIBLE_DEVICES: '1' }, mode: 'container' })).toEqual({ CUDA_VISIBLE_DEVICES: '1' });
  });
});
