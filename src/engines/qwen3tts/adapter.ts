// Qwen3-TTS, the GPU multilingual text-to-speech engine (docs/configuration.md, "Engines other than llama-server"): the
// same flags and routes as Kokoro (model id `qwen3-tts`; extra request fields language and
// instruct pass through untouched), on the GPU: the slot's device nodes and groups, and a
// MIOpen kernel cache that survives restarts. HSA_OVERRIDE_GFX_VERSION is deliberately not
// set. The cache is SVC_QWEN3TTS_CACHE, else qwen3tts-cache in the slot's state folder,
// mounted at /cache in a container.
import { join } from 'node:path';
import type { HostDevices } from '../container.js';
import { defineEngine } from '../engine-launch.js';
import { buildTtsArgv, TTS_ROUTES, TTS_SERVES } from '../kokoro/adapter.js';
import type { EngineAdapter } from '../types.js';

export const QWEN3TTS_MODEL_ID = 'qwen3-tts';
export const QWEN3TTS_DEFAULT_IMAGE = 'ghcr.io/svc-ai/svc-toolbox-qwen3tts:v1';

/** MIOpen's database and kernel cache under `cache`, searched fast. */
export const miopenEnv = (cache: string): Record<string, string> => ({
  MIOPEN_USER_DB_PATH: `${cache}/miopen`,
  MIOPEN_CUSTOM_CACHE_DIR: `${cache}/miopen`,
  MIOPEN_FIND_MODE: 'FAST',
});

export function createQwen3TtsAdapter(deps: { hostDevices?: () => HostDevices } = {}): EngineAdapter {
  return defineEngine({
    provider: 'qwen3tts',
    serves: TTS_SERVES,
    seedProfile: 'tts-qwen3',
    defaultImage: QWEN3TTS_DEFAULT_IMAGE,
    routes: TTS_ROUTES,
    defaultModelId: () => QWEN3TTS_MODEL_ID,
    launch: (ctx, flags) => {
      const cache = ctx.baseEnv.SVC_QWEN3TTS_CACHE || join(ctx.stateDir, 'qwen3tts-cache');
      return {
        argv: (host) => buildTtsArgv(ctx.slot.config.slot.port, ctx.model.path, host, flags.profile, flags.extra),
        env: miopenEnv(cache),
        container: {
          env: miopenEnv('/cache'),
          volumes: [{ source: cache, target: '/cache', mode: 'rw' }],
          files: ctx.model.path ? [ctx.model.path] : [],
        },
      };
    },
  }, deps);
}

export const qwen3TtsAdapter: EngineAdapter = createQwen3TtsAdapter();
