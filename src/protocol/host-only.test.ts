import { describe, expect, it } from 'vitest';
import { changedHostOnlySettings, isLoaderEnv, loaderEnvIn, ownedFlagsIn } from './host-only.js';

describe('host-only keys', () => {
  it('finds the listener flags svc owns in every spelling an engine reads', () => {
    expect(ownedFlagsIn(['--host', '0.0.0.0', '--port=9', '--listen', '::', '--reuse_port', '--HOST', 'x'])).toEqual(['--host', '--port', '--listen', '--reuse_port', '--HOST']);
    // argparse (ComfyUI, the TTS servers) expands a unique prefix: --list is --listen.
    expect(ownedFlagsIn(['--list', '0.0.0.0', '--po', '9', '--hos=x'])).toEqual(['--list', '--po', '--hos']);
    expect(ownedFlagsIn(['--no-host', '--threads', '4', '--jinja', '-p', 'hi', '--lora', 'x', '--parallel', '2', 'host', '--p'])).toEqual([]);
  });

  it('lists the loader variables of an environment', () => {
    expect(loaderEnvIn({ LD_PRELOAD: '/x.so', CUDA_VISIBLE_DEVICES: '0', PATH: '/tmp' })).toEqual(['LD_PRELOAD', 'PATH']);
    expect(loaderEnvIn(null)).toEqual([]);
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
