// What reaches an engine's environment, for every adapter in every mode it has (docs/auth.md,
// "Engine input"): the base allowlist of the gateway's own environment, GPU visibility from
// [slot].gpu_index, [server].env, and the few fixed variables an adapter sets itself (listed
// here, so that a new one is a decision). Nothing else: not the gateway's SVC_* settings, not
// llama.cpp's LLAMA_ARG_* flags, not a loader or interpreter variable of the gateway's.
import { afterAll, describe, expect, it } from 'vitest';
import { fakeBin, HOST_DEVICES, launchContext, type ContextInput } from '../../test/helpers/launch-context.js';
import { builtinAdapter } from './builtin/adapter.js';
import { createComfyUiAdapter } from './comfyui/adapter.js';
import { createFlmAdapter } from './flm/adapter.js';
import { engineFor } from './index.js';
import { createKokoroAdapter } from './kokoro/adapter.js';
import { llamaRpcAdapter } from './llama-rpc/adapter.js';
import { createLlamaServerAdapter } from './llama-server/adapter.js';
import { baseEnvironment, slotEnv } from './llama-server/env.js';
import { createMoonshineAdapter } from './moonshine/adapter.js';
import { createQwen3TtsAdapter } from './qwen3tts/adapter.js';
import type { EngineAdapter } from './types.js';

const bin = fakeBin(['llama-server', 'rpc-server', 'flm', 'moonshine', 'kokoro', 'qwen3tts', 'comfyui', 'podman', 'model.gguf']);
afterAll(() => bin.remove());
const hostDevices = () => HOST_DEVICES;

/** The gateway's environment: what the base allowlist keeps, and what must never reach an engine. */
const GATEWAY_ENV = {
  PATH: bin.dir, HOME: '/home/svc', LANG: 'C.UTF-8', HIP_VISIBLE_DEVICES: '0,1', GGML_VK_VISIBLE_DEVICES: '0', LD_LIBRARY_PATH: '/opt/rocm/lib',
  SVC_AUTH_ENABLED: '1', SVC_HF_TOKEN: 'hf_secret', LLAMA_ARG_LOG_FILE: '/tmp/x', LLAMA_ARG_RPC: '10.0.0.9:50052', LD_PRELOAD: '/tmp/x.so',
  NODE_OPTIONS: '--require /tmp/x.js', PYTHONWARNINGS: 'ignore::x.Y', BROWSER: 'id', PYTHONPATH: '/tmp',
};
const SERVER_ENV = { OMP_NUM_THREADS: '4', HOST_SET: 'kept as the host wrote it' };

/** Variables an adapter sets itself, by provider: fixed values (paths inside its image or its state folder), never input. */
const ADAPTER_OWN: Readonly<Record<string, readonly string[]>> = {
  flm: ['FLM_CONFIG_PATH', 'LD_LIBRARY_PATH'],
  qwen3tts: ['MIOPEN_USER_DB_PATH', 'MIOPEN_CUSTOM_CACHE_DIR', 'MIOPEN_FIND_MODE'],
  'llama-rpc': [],
};

interface Case {
  adapter: EngineAdapter;
  slot: Record<string, unknown>;
  svc?: Record<string, unknown>;
  modes: ReadonlyArray<'process' | 'container'>;
}

const model = { path: bin.path('model.gguf'), contextLength: 2048 };
const engines = (name: string) => ({ engines: { [name]: bin.path(name) } });
const CASES: Record<string, Case> = {
  'llama-server': { adapter: createLlamaServerAdapter({ hostDevices }), slot: { type: 'llm', device: 'gpu-rocm' }, svc: { engines: { llama_server: bin.path('llama-server') } }, modes: ['process', 'container'] },
  builtin: { adapter: builtinAdapter, slot: { type: 'llm', device: 'gpu-vulkan' }, modes: ['process'] },
  flm: { adapter: createFlmAdapter({ hostDevices }), slot: { type: 'llm', device: 'npu' }, svc: engines('flm'), modes: ['process', 'container'] },
  moonshine: { adapter: createMoonshineAdapter({ hostDevices }), slot: { type: 'transcription', device: 'cpu' }, svc: engines('moonshine'), modes: ['process', 'container'] },
  kokoro: { adapter: createKokoroAdapter({ hostDevices }), slot: { type: 'tts', device: 'gpu-rocm' }, svc: engines('kokoro'), modes: ['process', 'container'] },
  qwen3tts: { adapter: createQwen3TtsAdapter({ hostDevices }), slot: { type: 'tts', device: 'gpu-rocm' }, svc: engines('qwen3tts'), modes: ['process', 'container'] },
  comfyui: { adapter: createComfyUiAdapter({ hostDevices, exists: () => false }), slot: { type: 'image', device: 'gpu-rocm' }, svc: engines('comfyui'), modes: ['process', 'container'] },
  'llama-rpc': { adapter: llamaRpcAdapter, slot: { type: 'rpc-worker', device: 'gpu-rocm' }, modes: ['process'] },
};

function context(provider: string, c: Case, mode: 'process' | 'container') {
  const svc = { ...c.svc, engines: { ...(c.svc?.engines as object), runtime: mode === 'container' ? 'podman' : 'process' } };
  const input: ContextInput = { slot: { name: 'e', provider, gpu_index: 1, ...c.slot }, server: { env: SERVER_ENV }, svc, env: GATEWAY_ENV, resolved: model };
  return launchContext(input);
}

/** The `--env=K=V` a container command line passes in. */
const containerEnv = (args: readonly string[]) => Object.fromEntries(args.filter((a) => a.startsWith('--env=')).map((a) => a.slice('--env='.length)).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

describe('the environment an engine gets', () => {
  it('covers every adapter', () => {
    for (const provider of Object.keys(CASES)) expect(engineFor(provider)?.provider, provider).toBe(provider);
    for (const provider of ['llama-server', 'builtin', 'flm', 'moonshine', 'kokoro', 'qwen3tts', 'comfyui', 'llama-rpc']) expect(CASES[provider], provider).toBeDefined();
  });

  for (const [provider, c] of Object.entries(CASES)) {
    for (const mode of c.modes) {
      it(`${provider} (${mode}): the base allowlist, GPU visibility, [server].env and its own fixed variables only`, async () => {
        const ctx = context(provider, c, mode);
        const spec = await c.adapter.launch(ctx);
        expect(spec.mode).toBe(mode);
        const own = new Set(ADAPTER_OWN[provider] ?? []);
        const given = slotEnv({ device: ctx.slot.config.slot.device, gpuIndex: 1, serverEnv: SERVER_ENV, mode });
        // In a container the runtime's own process gets the base, and the engine what --env passes in.
        const engineEnv = mode === 'container' ? containerEnv(spec.args) : spec.env;
        const expected = mode === 'container' ? given : { ...baseEnvironment(GATEWAY_ENV), ...given };
        if (mode === 'container') expect(spec.env).toEqual(baseEnvironment(GATEWAY_ENV));
        const foreign = Object.keys(engineEnv).filter((key) => !own.has(key) && engineEnv[key] !== expected[key]);
        expect(foreign, JSON.stringify(engineEnv)).toEqual([]);
        for (const [key, value] of Object.entries(given)) expect(engineEnv[key], key).toBe(value);
        for (const key of ['SVC_AUTH_ENABLED', 'SVC_HF_TOKEN', 'LLAMA_ARG_LOG_FILE', 'LLAMA_ARG_RPC', 'LD_PRELOAD', 'NODE_OPTIONS', 'PYTHONWARNINGS', 'BROWSER', 'PYTHONPATH']) {
          expect(engineEnv[key], key).toBeUndefined();
          expect(spec.env[key], key).toBeUndefined();
        }
      });
    }
  }
});
