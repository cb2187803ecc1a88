import { describe, expect, it } from 'vitest';
import { changedHostOnlySettings, hostOnlyFlags, isLoaderEnv } from './host-only.js';

describe('host-only keys', () => {
  it('finds file flags in both --flag value and --flag=value forms, once each', () => {
    expect(hostOnlyFlags(['--ctx-size', '4096', '--log-file', '/tmp/x', '--slot-save-path=/tmp/s', '--log-file=/tmp/y', '-m', 'a.gguf'])).toEqual(['--log-file', '--slot-save-path', '-m']);
    expect(hostOnlyFlags(['--threads', '4', '--n-gpu-layers=99', '--jinja'])).toEqual([]);
  });

  it('treats loader and interpreter variables as host-only, others not', () => {
    for (const name of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'PATH', 'NODE_OPTIONS', 'PYTHONPATH', 'BASH_ENV', 'GGML_BACKEND_PATH']) expect(isLoaderEnv(name), name).toBe(true);
    for (const name of ['CUDA_VISIBLE_DEVICES', 'HIP_VISIBLE_DEVICES', 'OMP_NUM_THREADS', 'GGML_VK_VISIBLE_DEVICES', 'PATHS']) expect(isLoaderEnv(name), name).toBe(false);
  });

  it('names the host-only settings whose values change, and only those', () => {
    const before = { engines: { llama_server: '', runtime: 'process' }, models: { roots: ['/a'], store: '' }, slots: { idle_timeout_s: 300 } };
    expect(changedHostOnlySettings(before, structuredClone(before))).toEqual([]);
    expect(changedHostOnlySettings(before, { ...before, slots: { idle_timeout_s: 1 } })).toEqual([]);
    expect(changedHostOnlySettings(before, { ...before, engines: { llama_server: '/tmp/x.sh', runtime: 'process' } })).toEqual(['engines.llama_server']);
    expect(changedHostOnlySettings(before, { ...before, models: { roots: ['/a', '/b'], store: '' } })).toEqual(['models.roots']);
  });
});
