import { describe, expect, it } from 'vitest';
import { backendOfDevice, backendWarnings } from './backend.js';

describe('backendWarnings', () => {
  it('a gpu-* device whose engine runs on the CPU is a warning naming both and the layers', () => {
    expect(backendWarnings('gpu-vulkan', { backend: 'cpu', gpuLayers: { offloaded: 0, total: 3 } })).toEqual([
      'device is gpu-vulkan, but the engine runs on the CPU (0 of 3 layers on a GPU): no GPU build of the engine, or no GPU it can use (see the engine log)',
    ]);
  });

  it('a cpu device on a GPU backend, or another GPU backend than the device says, is one too', () => {
    expect(backendWarnings('cpu', { backend: 'cuda', gpuLayers: { offloaded: 33, total: 33 } })).toEqual(['device is cpu, but the engine runs on cuda (33 of 33 layers on a GPU)']);
    expect(backendWarnings('gpu-rocm', { backend: 'vulkan', gpuLayers: null })).toEqual(['device is gpu-rocm, but the engine runs on vulkan']);
  });

  it('no warning when they agree, when the backend is unknown, or for the NPU', () => {
    expect(backendWarnings('cpu', { backend: 'cpu', gpuLayers: { offloaded: 0, total: null } })).toEqual([]);
    expect(backendWarnings('gpu-cuda', { backend: 'cuda', gpuLayers: { offloaded: 10, total: 33 } })).toEqual([]);
    expect(backendWarnings('gpu-vulkan', { backend: null, gpuLayers: null })).toEqual([]);
    expect(backendWarnings('gpu-vulkan', null)).toEqual([]);
    expect(backendWarnings('npu', { backend: 'cpu', gpuLayers: null })).toEqual([]);
    expect(backendOfDevice('npu')).toBeNull();
  });
});
