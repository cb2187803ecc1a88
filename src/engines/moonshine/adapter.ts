// Moonshine, the CPU speech-to-text engine (docs/configuration.md, "Engines other than llama-server"):
//   <moonshine server> [--model_path <weights>] [--model_arch <arch>] --host H --port P <profile flags> <extra_args>
// The slot's model id names the architecture the way the server reports it in /v1/models:
// `moonshine-<arch>-en` (tiny, tiny_streaming, base, small, small_streaming; the default is
// moonshine-small_streaming-en). A registry model or [model].path gives --model_path.
// No seed profile is made for it, so a device default (cpu → cpu-llm, llama-server flags)
// never applies. As a process: [engines].moonshine (or SVC_MOONSHINE); in a container the
// svc-toolbox-moonshine image, CPU only. Health: GET /health {status ok|loading, model_loaded, ...}.
import type { SlotType } from '../../config/schema/common.js';
import { MOONSHINE_DEFAULT_MODEL } from '../../protocol/builtin-models.js';
import { normalizeArgv } from '../argv.js';
import type { HostDevices } from '../container.js';
import { defineEngine } from '../engine-launch.js';
import type { EngineAdapter, EngineRoute } from '../types.js';

export const MOONSHINE_SERVES: readonly SlotType[] = ['transcription'];
export const MOONSHINE_ARCHS = ['tiny', 'tiny_streaming', 'base', 'small', 'small_streaming'] as const;
export const MOONSHINE_DEFAULT_IMAGE = 'ghcr.io/svc-ai/svc-toolbox-moonshine:v1';
/** Its HTTP routes. (Its WebSocket /v1/audio/stream, PCM16 at 16 kHz in, {text, is_final} out, is not routed by svc.) */
export const MOONSHINE_ROUTES: Readonly<Record<string, EngineRoute>> = {
  health: { method: 'GET', path: '/health' },
  models: { method: 'GET', path: '/v1/models' },
  transcriptions: { method: 'POST', path: '/v1/audio/transcriptions' },
};

/** The --model_arch a model id names (`moonshine-<arch>-en`), or null for other ids (the server's default then). */
export function moonshineArch(modelId: string): string | null {
  const match = /^moonshine-(.+)-en$/.exec(modelId);
  return match && (MOONSHINE_ARCHS as readonly string[]).includes(match[1]!) ? match[1]! : null;
}

export function buildMoonshineArgv(port: number, model: { id: string; path: string }, host: string, profileFlags: readonly string[], extra: readonly string[]): string[] {
  const arch = moonshineArch(model.id);
  return normalizeArgv([
    ...(model.path ? ['--model_path', model.path] : []),
    ...(arch ? ['--model_arch', arch] : []),
    '--host', host, '--port', String(port),
    ...profileFlags, ...extra,
  ]);
}

export function createMoonshineAdapter(deps: { hostDevices?: () => HostDevices } = {}): EngineAdapter {
  return defineEngine({
    provider: 'moonshine',
    serves: MOONSHINE_SERVES,
    seedProfile: null,
    defaultImage: MOONSHINE_DEFAULT_IMAGE,
    routes: MOONSHINE_ROUTES,
    defaultModelId: () => MOONSHINE_DEFAULT_MODEL,
    launch: (ctx, flags) => ({
      argv: (host) => buildMoonshineArgv(ctx.slot.config.slot.port, ctx.model, host, flags.profile, flags.extra),
      container: { device: 'cpu', files: ctx.model.path ? [ctx.model.path] : [] },
    }),
  }, deps);
}

export const moonshineAdapter: EngineAdapter = createMoonshineAdapter();
