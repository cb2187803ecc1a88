import { describe, expect, it } from 'vitest';
import { changedHostOnlySettings, hostOnlyEnvIn, lanSettableEnv, ownedFlagsIn } from './host-only.js';

describe('host-only keys', () => {
  it('finds the listener flags svc owns in every spelling an engine reads', () => {
    expect(ownedFlagsIn(['--host', '0.0.0.0', '--port=9', '--listen', '::', '--reuse_port', '--HOST', 'x'])).toEqual(['--host', '--port', '--listen', '--reuse_port', '--HOST']);
    // argparse (ComfyUI, the TTS servers) expands a unique prefix: --list is --listen.
    expect(ownedFlagsIn(['--list', '0.0.0.0', '--po', '9', '--hos=x'])).toEqual(['--list', '--po', '--hos']);
    expect(ownedFlagsIn(['--no-host', '--threads', '4', '--jinja', '-p', 'hi', '--lora', 'x', '--parallel', '2', 'host', '--p'])).toEqual([]);
  });

  it('lets a LAN client set only the allowlisted names, each with a plain device list or number', () => {
    const settable: Array<[string, string]> = [
      ['CUDA_VISIBLE_DEVICES', '0'], ['CUDA_VISIBLE_DEVICES', '0,2,3'], ['CUDA_VISIBLE_DEVICES', ''], ['CUDA_VISIBLE_DEVICES', 'GPU-8932f937-d72c-4106-c12f-20bd9faed9f6'],
      ['CUDA_VISIBLE_DEVICES', 'MIG-4b5d7e2a-0c1d-5e6f-8a9b-0c1d2e3f4a5b,1'], ['CUDA_DEVICE_ORDER', 'PCI_BUS_ID'], ['HIP_VISIBLE_DEVICES', '1'],
      ['ROCR_VISIBLE_DEVICES', 'GPU-4a5b6c7d8e9f0a1b'], ['GGML_VK_VISIBLE_DEVICES', '0,1'], ['HSA_OVERRIDE_GFX_VERSION', '10.3.0'],
      ['OMP_NUM_THREADS', '8'], ['OPENBLAS_NUM_THREADS', '1'], ['MKL_NUM_THREADS', '9999'],
    ];
    for (const [name, value] of settable) expect(lanSettableEnv(name, value), `${name}=${value}`).toBe(true);
    const refused: Array<[string, string]> = [
      // Not on the list: flags by another name, loaders, programs, and names that only look close.
      ['LLAMA_ARG_LOG_FILE', '/tmp/x'], ['LLAMA_ARG_CHAT_TEMPLATE_FILE', '/etc/shadow'], ['LLAMA_ARG_RPC', '10.0.0.9:50052'], ['LLAMA_ARG_MODEL_URL', 'http://x/m.gguf'],
      ['LLAMA_ARG_THREADS', '4'], ['PYTHONWARNINGS', 'ignore::x.Y'], ['BROWSER', 'id'], ['LD_PRELOAD', '/x.so'], ['NODE_OPTIONS', '--require /x.js'], ['PATH', '/tmp'],
      ['CUDA_VISIBLE_DEVICES_X', '0'], ['cuda_visible_devices', '0'], ['constructor', '0'], ['__proto__', '0'],
      // On the list, with a value that is no plain device list or number.
      ['CUDA_VISIBLE_DEVICES', '0;id'], ['CUDA_VISIBLE_DEVICES', '/dev/nvidia0'], ['CUDA_VISIBLE_DEVICES', '0,'], ['CUDA_VISIBLE_DEVICES', ' 0'], ['CUDA_VISIBLE_DEVICES', 'GPU-x'],
      ['GGML_VK_VISIBLE_DEVICES', 'GPU-8932f937-d72c-4106-c12f-20bd9faed9f6'], ['CUDA_DEVICE_ORDER', 'pci_bus_id'], ['HSA_OVERRIDE_GFX_VERSION', '10.3'],
      ['OMP_NUM_THREADS', '0'], ['OMP_NUM_THREADS', '4,2'], ['OMP_NUM_THREADS', '99999'], ['OMP_NUM_THREADS', '-1'], ['OMP_NUM_THREADS', '4\n'],
    ];
    for (const [name, value] of refused) expect(lanSettableEnv(name, value), `${name}=${value}`).toBe(false);
  });

  it('names what needs host authority, comparing with what the host set as flags are compared', () => {
    expect(hostOnlyEnvIn({ LD_PRELOAD: '/x.so', CUDA_VISIBLE_DEVICES: '0', OMP_NUM_THREADS: 'all' })).toEqual(['LD_PRELOAD', 'OMP_NUM_THREADS']);
    expect(hostOnlyEnvIn(null)).toEqual([]);
    const host = { LLAMA_ARG_LOG_FILE: '/var/log/a', OMP_NUM_THREADS: 'all' };
    // Keeping the host's names and values passes, and so does removing them; a new value does not.
    expect(hostOnlyEnvIn({ ...host, CUDA_VISIBLE_DEVICES: '1' }, host)).toEqual([]);
    expect(hostOnlyEnvIn({}, host)).toEqual([]);
    expect(hostOnlyEnvIn({ LLAMA_ARG_LOG_FILE: '/tmp/b', OMP_NUM_THREADS: 'all' }, host)).toEqual(['LLAMA_ARG_LOG_FILE']);
    expect(hostOnlyEnvIn({ toString: 'x' } as Record<string, string>, {})).toEqual(['toString']);
  });

  it('names the host-only settings whose values change, and only those', () => {
    const before = { engines: { llama_server: '', runtime: 'process' }, models: { roots: ['/a'], store: '' }, slots: { idle_timeout_s: 300 } };
    expect(changedHostOnlySettings(before, structuredClone(before))).toEqual([]);
    expect(changedHostOnlySettings(before, { ...before, slots: { idle_timeout_s: 1 } })).toEqual([]);
    expect(changedHostOnlySettings(before, { ...before, engines: { llama_server: '/tmp/x.sh', runtime: 'process' } })).toEqual(['engines.llama_server']);
    expect(changedHostOnlySettings(before, { ...before, models: { roots: ['/a', '/b'], store: '' } })).toEqual(['models.roots']);
  });
});
