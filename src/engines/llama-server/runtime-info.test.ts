import { describe, expect, it } from 'vitest';
import { parseLlamaServerLog } from './runtime-info.js';

// The start of a real engine.log: the cached llama-server (CPU build) on the tiny model, -ngl 0.
const CPU_BUILD = [
  '0.00.000.436 I srv  llama_server: initializing ...',
  'warning: no usable GPU found, --gpu-layers option will be ignored',
  'warning: one possible reason is that llama.cpp was compiled without GPU support',
  "0.00.007.005 I srv    load_model: loading model '/tmp/ls/tiny.gguf'",
  '0.00.021.716 I srv  llama_server: model loaded',
];

// The lines llama.cpp writes on a CUDA machine at verbosity 4 (formats from src/llama-model.cpp
// and ggml-cuda.cu of the bundled llama.cpp source).
const CUDA_VERBOSE = [
  'ggml_cuda_init: found 1 CUDA devices (Total VRAM: 81559 MiB):',
  '  Device 0: NVIDIA H100 80GB HBM3, compute capability 9.0, VMM: yes',
  '0.00.034.734 I load_tensors: loading model tensors, this can take a while... (load_mode = mmap)',
  '0.00.035.001 I load_tensors: offloading output layer to GPU',
  '0.00.035.002 I load_tensors: offloading 32 repeating layers to GPU',
  '0.00.035.003 I load_tensors: offloaded 33/33 layers to GPU',
  '0.00.035.225 I load_tensors:   CPU_Mapped model buffer size =   281.81 MiB',
  '0.00.035.226 I load_tensors:        CUDA0 model buffer size =  4156.00 MiB',
];

describe('parseLlamaServerLog', () => {
  it('a build without a usable GPU: cpu, no layers offloaded', () => {
    expect(parseLlamaServerLog(CPU_BUILD, ['-ngl', '999'])).toEqual({ backend: 'cpu', gpuLayers: { offloaded: 0, total: null } });
  });

  it('a verbose load log on a GPU: the backend of the model buffers and the layer count', () => {
    expect(parseLlamaServerLog(CUDA_VERBOSE, ['-ngl', '999'])).toEqual({ backend: 'cuda', gpuLayers: { offloaded: 33, total: 33 } });
    const vulkan = ['load_tensors: offloaded 10/29 layers to GPU', 'load_tensors:      Vulkan0 model buffer size =   900.00 MiB'];
    expect(parseLlamaServerLog(vulkan, ['-ngl', '10'])).toEqual({ backend: 'vulkan', gpuLayers: { offloaded: 10, total: 29 } });
    expect(parseLlamaServerLog(['ggml_cuda_init: found 1 ROCm devices:', 'load_tensors: offloaded 5/5 layers to GPU'], [])).toEqual({ backend: 'rocm', gpuLayers: { offloaded: 5, total: 5 } });
  });

  it('nothing offloaded is cpu, whatever devices the build found', () => {
    expect(parseLlamaServerLog(['ggml_cuda_init: found 1 CUDA devices', 'load_tensors: offloaded 0/33 layers to GPU'], [])).toEqual({ backend: 'cpu', gpuLayers: { offloaded: 0, total: 33 } });
    expect(parseLlamaServerLog(['ggml_cuda_init: found 1 CUDA devices'], ['-ngl', '0'])).toEqual({ backend: 'cpu', gpuLayers: { offloaded: 0, total: null } });
    expect(parseLlamaServerLog([], ['--n-gpu-layers=8', '--gpu-layers', '0'])).toEqual({ backend: 'cpu', gpuLayers: { offloaded: 0, total: null } });
  });

  it('what the log does not say stays unknown', () => {
    expect(parseLlamaServerLog(['llama_server: model loaded'], ['-ngl', '999'])).toEqual({ backend: null, gpuLayers: null });
    expect(parseLlamaServerLog(['ggml_cuda_init: found 2 CUDA devices'], ['-ngl', '999'])).toEqual({ backend: 'cuda', gpuLayers: null });
    expect(parseLlamaServerLog(['load_tensors: offloaded 12/33 layers to GPU'], [])).toEqual({ backend: null, gpuLayers: { offloaded: 12, total: 33 } });
  });
});
