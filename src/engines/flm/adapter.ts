// FastFlowLM, the NPU engine (docs/routing.md, "NPU slots"):
//   flm serve <tag> --host H --port P --ctx-len C [--embed 1] [--asr 1] <profile flags> <extra_args>
// As a process: [engines].flm (or SVC_FLM, or `flm` on PATH). In a container: the profile's
// image (flm seed: svc-toolbox-flm) with `tini -- flm` as its entrypoint, the NPU devices,
// FLM's environment and its models folder. FLM has no /health: the generic probe falls back
// to GET /v1/models, which answers 200 once the model is loaded.
// Only the NPU's llm slot (the anchor) runs this engine; NPU embedding and transcription
// slots are shadows its process serves with --embed 1 / --asr 1 (src/config/npu.ts).
import { join } from 'node:path';
import { isNpuShadow } from '../../config/npu.js';
import type { SlotType } from '../../config/schema/common.js';
import type { SlotFile } from '../../config/schema/slot.js';
import { SlotError } from '../../protocol/errors.js';
import { normalizeArgv } from '../argv.js';
import type { HostDevices } from '../container.js';
import { defineEngine } from '../engine-launch.js';
import type { EngineAdapter, EngineRoute } from '../types.js';

export const FLM_SERVES: readonly SlotType[] = ['llm', 'embedding', 'transcription'];
export const FLM_DEFAULT_IMAGE = 'ghcr.io/svc-ai/svc-toolbox-flm:0.9.44';
/** FLM's routes: no /health; embeddings and transcriptions only with --embed 1 / --asr 1. */
export const FLM_ROUTES: Readonly<Record<string, EngineRoute>> = {
  models: { method: 'GET', path: '/v1/models' },
  chat: { method: 'POST', path: '/v1/chat/completions' },
  embeddings: { method: 'POST', path: '/v1/embeddings' },
  transcriptions: { method: 'POST', path: '/v1/audio/transcriptions' },
};
/** --ctx-len when [model].context_size is unset. */
export const FLM_DEFAULT_CONTEXT = 8192;
/** The models FLM loads beside the LLM for --embed 1 and --asr 1, as its /v1/models names them. */
export const FLM_SHADOW_MODELS: Readonly<Record<string, string>> = { embedding: 'embed-gemma:300m', transcription: 'whisper-v3:turbo' };
/** Where FLM keeps its models inside the image (its HOME is /var/lib/svc). */
export const FLM_CONTAINER_MODELS = '/var/lib/svc/.config/flm/models';
export const FLM_CONTAINER_ENV: Readonly<Record<string, string>> = {
  FLM_CONFIG_PATH: '/opt/fastflowlm/share/flm/model_list.json',
  LD_LIBRARY_PATH: '/opt/fastflowlm/lib:/opt/xilinx/xrt/lib:/usr/lib/x86_64-linux-gnu',
};

/**
 * The tag FLM serves for a model id: FLM's own `family:size` as is; a catalogue id
 * `<family>-<size>-FLM` becomes `family:size` (gemma4-it-e2b-FLM → gemma4-it:e2b).
 */
export function flmTag(id: string): string {
  if (id.includes(':') || !id.endsWith('-FLM')) return id;
  const stem = id.slice(0, -'-FLM'.length);
  const cut = stem.lastIndexOf('-');
  return cut > 0 ? `${stem.slice(0, cut)}:${stem.slice(cut + 1)}` : stem;
}

/** The engine's argv after the program (`serve …`), for a listener on `host`. */
export function buildFlmArgv(config: Pick<SlotFile, 'slot' | 'model' | 'npu' | 'server'>, modelId: string, host: string, profileFlags: readonly string[], extra: readonly string[]): string[] {
  const argv = ['serve', flmTag(modelId), '--host', host, '--port', String(config.slot.port), '--ctx-len', String(config.model.context_size ?? FLM_DEFAULT_CONTEXT)];
  if (config.npu.embed) argv.push('--embed', '1');
  if (config.npu.asr) argv.push('--asr', '1');
  return normalizeArgv([...argv, ...profileFlags, ...extra]);
}

export function createFlmAdapter(deps: { hostDevices?: () => HostDevices } = {}): EngineAdapter {
  return defineEngine({
    provider: 'flm',
    serves: FLM_SERVES,
    seedProfile: 'flm',
    defaultImage: FLM_DEFAULT_IMAGE,
    routes: FLM_ROUTES,
    defaultModelId: (config) => FLM_SHADOW_MODELS[config.slot.type] ?? '',
    check: (slot) => {
      if (!isNpuShadow(slot)) return;
      throw new SlotError('slot.config_error', `slot ${slot.name} is an NPU ${slot.type} slot: it runs in the engine of the NPU llm slot (with [npu].${slot.type === 'embedding' ? 'embed' : 'asr'} = true there), never on its own`, { slot: slot.name });
    },
    launch: (ctx, flags) => ({
      argv: (host) => buildFlmArgv(ctx.slot.config, ctx.model.id, host, flags.profile, flags.extra),
      container: {
        entrypoint: 'tini',
        wrap: (argv) => ['--', 'flm', ...argv],
        env: { ...FLM_CONTAINER_ENV },
        // FLM downloads into its models folder: kept in the model store, read-write.
        volumes: [{ source: join(ctx.modelStore, 'flm', 'models'), target: FLM_CONTAINER_MODELS, mode: 'rw' }],
      },
    }),
  }, deps);
}

export const flmAdapter: EngineAdapter = createFlmAdapter();
