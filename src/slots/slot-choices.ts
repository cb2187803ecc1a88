// The choices a new or edited slot makes that depend on more than its own fields: which
// device (--hardware, device, the hardware probe, or the spec's fallback), and which engine
// (the provider rule of the spec's CLI table: comfyui is never named; image slots get it
// from their type; every other type has an engine made for it).
import type { SvcPaths } from '../config/paths.js';
import type { SvcToml } from '../config/schema/svc-toml.js';
import { BUILTIN_PROVIDER } from '../engines/builtin/adapter.js';
import { findLlamaServer } from '../engines/llama-server/binary.js';
import { readHardwareJson } from '../host/hardware.js';
import { HARDWARE_DEVICE, type HardwareFlag } from '../protocol/hardware.js';
import { defaultHardware } from '../host/recommend.js';
import type { FieldProblem } from '../protocol/issues.js';
import { IMAGE_PROVIDER, type Device } from '../protocol/vocabulary.js';

export interface DeviceChoice {
  device: Device;
  hardware: HardwareFlag | null;
  device_source: 'given' | 'hardware' | 'probe' | 'fallback';
}

/** comfyui is never named; image slots always run on it. Returns the provider to use, if given. */
export function checkProvider(type: string, provider: string | undefined, problems: FieldProblem[]): string | undefined {
  if (type === 'image') {
    if (provider !== undefined && provider !== IMAGE_PROVIDER) {
      problems.push({ path: 'provider', message: `image slots always run on ${IMAGE_PROVIDER}; leave provider out (got ${JSON.stringify(provider)})` });
    }
    return IMAGE_PROVIDER;
  }
  if (provider === IMAGE_PROVIDER) {
    problems.push({ path: 'provider', message: `"${IMAGE_PROVIDER}" is not accepted: image slots are created with type "image" (svc slot create <name> --type image), which implies it` });
  }
  return provider;
}

/** The device a body asks for: an explicit device wins; else --hardware mapped; a contradiction is a problem. */
export function readDevice(body: { device?: Device; hardware?: HardwareFlag }, problems: FieldProblem[]): { device?: Device; hardware?: HardwareFlag } {
  const { device, hardware } = body;
  if (hardware && device && HARDWARE_DEVICE[hardware] !== device) {
    problems.push({ path: 'device', message: `hardware "${hardware}" means device "${HARDWARE_DEVICE[hardware]}", which contradicts device "${device}"; give one of them` });
  }
  return { ...(hardware !== undefined && { hardware }), device: device ?? (hardware ? HARDWARE_DEVICE[hardware] : undefined) };
}

/** The device of a new slot: given, else from --hardware, else the probe's recommendation, else the fallback. */
export async function chooseDevice(paths: SvcPaths, given: { device?: Device; hardware?: HardwareFlag }): Promise<DeviceChoice> {
  if (given.device !== undefined) return { device: given.device, hardware: given.hardware ?? null, device_source: given.hardware ? 'hardware' : 'given' };
  const probe = await readHardwareJson(paths);
  const flag = defaultHardware(probe);
  return { device: HARDWARE_DEVICE[flag], hardware: flag, device_source: probe ? 'probe' : 'fallback' };
}

export interface ProviderChoice {
  provider: string;
  /** Why this engine, in one line for `svc slot create` to print. */
  reason: string;
}

/**
 * The engine of a new slot that names none: the one made for its type and device (image →
 * comfyui, rpc-worker → llama-rpc, npu → flm, tts → kokoro on cpu else qwen3tts, transcription → moonshine); for
 * llm, embedding and reranking slots llama-server when there is one to run (a binary, or a
 * container runtime that runs its image), else the built-in engine, which needs nothing
 * beyond npm install. A slot created on llama-server with no llama-server would fail every
 * request until one is installed.
 */
export async function chooseProvider(type: string, device: string, engines: SvcToml['engines'], env: NodeJS.ProcessEnv): Promise<ProviderChoice> {
  if (type === 'image') return { provider: IMAGE_PROVIDER, reason: 'image slots always run on comfyui' };
  if (type === 'rpc-worker') return { provider: 'llama-rpc', reason: 'an RPC worker is llama.cpp\'s rpc-server' };
  if (device === 'npu') return { provider: 'flm', reason: 'the NPU runs the flm engine' };
  if (type === 'tts') return device === 'cpu' ? { provider: 'kokoro', reason: 'kokoro is the CPU speech engine' } : { provider: 'qwen3tts', reason: 'qwen3tts is the GPU speech engine' };
  if (type === 'transcription') return { provider: 'moonshine', reason: 'moonshine is the transcription engine' };
  if (engines.runtime !== 'process') return { provider: 'llama-server', reason: `[engines].runtime = "${engines.runtime}" runs llama-server from its profile's image` };
  try {
    const found = await findLlamaServer(engines.llama_server, env);
    const from = { config: '[engines].llama_server', env: 'SVC_LLAMA_SERVER', path: 'PATH' }[found.from];
    return { provider: 'llama-server', reason: `llama-server found at ${found.path} (from ${from})` };
  } catch {
    // A llama-server the user named but that is not there is their choice with a typo, not a
    // reason to pick another engine: the create warning says what is wrong with it.
    if (engines.llama_server) return { provider: 'llama-server', reason: '[engines].llama_server names it (it is not usable: see the warning)' };
    if (env.SVC_LLAMA_SERVER) return { provider: 'llama-server', reason: 'SVC_LLAMA_SERVER names it (it is not usable: see the warning)' };
    return { provider: BUILTIN_PROVIDER, reason: 'no llama-server binary was found ([engines].llama_server, SVC_LLAMA_SERVER, PATH), so the built-in engine (node-llama-cpp) serves it; pass --provider llama-server to use one you install later' };
  }
}
