// The choices a new or edited slot makes that depend on more than its own fields: which
// device (--hardware, device, the hardware probe, or the spec's fallback), and which engine
// (the provider rule of the spec's CLI table: comfyui is never named; image slots get it
// from their type; every other type has an engine made for it).
import type { SvcPaths } from '../config/paths.js';
import { readHardwareJson } from '../host/hardware.js';
import { defaultHardware, HARDWARE_DEVICE, type HardwareFlag } from '../protocol/hardware.js';
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

/**
 * The engine of a new slot that names none: the one made for its type and device (image →
 * comfyui, npu → flm, tts → kokoro on cpu else qwen3tts, transcription → moonshine), else
 * llama-server. llama-server would refuse those types at their first start.
 */
export function defaultProvider(type: string, device: string): string {
  if (type === 'image') return IMAGE_PROVIDER;
  if (device === 'npu') return 'flm';
  if (type === 'tts') return device === 'cpu' ? 'kokoro' : 'qwen3tts';
  if (type === 'transcription') return 'moonshine';
  return 'llama-server';
}
