// Kokoro, the CPU text-to-speech engine (docs/configuration.md, "Engines other than llama-server"):
//   <kokoro server> <profile flags> [--model_path <model>] --host H --port P <extra_args>
// The tts seed profile supplies --model_path (the ONNX weights in the model store); a
// registry model or [model].path for the slot overrides it. As a process: [engines].kokoro
// (or SVC_KOKORO). In a container: the profile's image (svc-toolbox-kokoro), no devices.
// Health: GET /health {status, model_loaded, default_voice}; loading while model_loaded is false.
// It serves one model, `kokoro`, and OpenAI's POST /v1/audio/speech.
import type { SlotType } from '../../config/schema/common.js';
import { KOKORO_MODEL_ID } from '../../protocol/builtin-models.js';
import { normalizeArgv } from '../argv.js';
import type { HostDevices } from '../container.js';
import { defineEngine } from '../engine-launch.js';
import type { EngineAdapter, EngineRoute } from '../types.js';

export const TTS_SERVES: readonly SlotType[] = ['tts'];
export const KOKORO_DEFAULT_IMAGE = 'ghcr.io/svc-ai/svc-toolbox-kokoro:v1';

/** The routes of svc's TTS servers (Kokoro and Qwen3-TTS alike). */
export const TTS_ROUTES: Readonly<Record<string, EngineRoute>> = {
  health: { method: 'GET', path: '/health' },
  models: { method: 'GET', path: '/v1/models' },
  voices: { method: 'GET', path: '/v1/audio/voices' },
  speech: { method: 'POST', path: '/v1/audio/speech' },
};

/** The argv of a TTS server (Kokoro's and Qwen3-TTS's flags are the same): profile, model, listener, extra_args. */
export function buildTtsArgv(port: number, modelPath: string, host: string, profileFlags: readonly string[], extra: readonly string[]): string[] {
  return normalizeArgv([...profileFlags, ...(modelPath ? ['--model_path', modelPath] : []), '--host', host, '--port', String(port), ...extra]);
}

export function createKokoroAdapter(deps: { hostDevices?: () => HostDevices } = {}): EngineAdapter {
  return defineEngine({
    provider: 'kokoro',
    serves: TTS_SERVES,
    seedProfile: 'tts',
    defaultImage: KOKORO_DEFAULT_IMAGE,
    routes: TTS_ROUTES,
    defaultModelId: () => KOKORO_MODEL_ID,
    launch: (ctx, flags) => ({
      argv: (host) => buildTtsArgv(ctx.slot.config.slot.port, ctx.model.path, host, flags.profile, flags.extra),
      container: { device: 'cpu', files: ctx.model.path ? [ctx.model.path] : [] },
    }),
  }, deps);
}

export const kokoroAdapter: EngineAdapter = createKokoroAdapter();
