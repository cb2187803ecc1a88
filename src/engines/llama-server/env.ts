// The environment of an engine ([slot].gpu_index becomes the backend's device-visibility variable).
// Layers, lowest first: a clean base taken from the gateway's environment; GPU visibility
// derived from [slot].gpu_index; [server].env (explicit keys win).
//
// The base is an allowlist, not the gateway's whole environment: the engine must not see
// the gateway's SVC_* settings (tokens, URLs), nor llama.cpp's LLAMA_ARG_* variables that
// would change its flags behind the slot file's back. What passes: the process basics
// (PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, TZ, LANG, LANGUAGE, LC_*), the dynamic loader
// path, and the GPU runtimes' own variables (HIP_, ROCR_, HSA_, ROCM_, GGML_, CUDA_, NVIDIA_,
// VK_, MESA_, AMD_, RADV_), so an operator who narrowed the gateway's GPUs narrows the
// engines too. For a container runtime also what podman/docker need to find their socket
// and config (XDG_RUNTIME_DIR, XDG_CONFIG_HOME, DBUS_SESSION_BUS_ADDRESS, CONTAINER_*,
// CONTAINERS_*, DOCKER_*). Anything else goes through [server].env.
import type { Device } from '../../config/schema/common.js';

const BASE_KEYS = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TMPDIR', 'TZ', 'LANG', 'LANGUAGE', 'LD_LIBRARY_PATH',
  'XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME', 'DBUS_SESSION_BUS_ADDRESS',
]);
const BASE_PREFIXES = [
  'LC_', 'HIP_', 'ROCR_', 'HSA_', 'ROCM_', 'GGML_', 'CUDA_', 'NVIDIA_', 'VK_', 'MESA_', 'AMD_', 'RADV_',
  'CONTAINER_', 'CONTAINERS_', 'DOCKER_',
];

/** Keep only the allowlisted variables of the gateway's environment (see the header). */
export function baseEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (BASE_KEYS.has(key) || BASE_PREFIXES.some((p) => key.startsWith(p))) out[key] = value;
  }
  return out;
}

/**
 * GPU visibility for a pinned slot. In a process the index is the host's GPU n; in a
 * CUDA container CDI already exposes only GPU n, so inside it is GPU 0. Null = all GPUs:
 * nothing is set.
 */
export function gpuVisibilityEnv(device: Device, gpuIndex: number | null, mode: 'process' | 'container'): Record<string, string> {
  if (gpuIndex === null) return {};
  const n = String(gpuIndex);
  switch (device) {
    case 'gpu-rocm':
      return { HIP_VISIBLE_DEVICES: n, ROCR_VISIBLE_DEVICES: n };
    case 'gpu-vulkan':
      return { GGML_VK_VISIBLE_DEVICES: n };
    case 'gpu-cuda':
      return { CUDA_VISIBLE_DEVICES: mode === 'container' ? '0' : n };
    default:
      return {};
  }
}

export interface EngineEnvInput {
  device: Device;
  gpuIndex: number | null;
  serverEnv: Record<string, string> | null;
  mode: 'process' | 'container';
}

/** What the engine itself sees on top of its base: GPU visibility, then [server].env. */
export function slotEnv(input: EngineEnvInput): Record<string, string> {
  return { ...gpuVisibilityEnv(input.device, input.gpuIndex, input.mode), ...(input.serverEnv ?? {}) };
}

/** The complete environment of an engine process: base, GPU visibility, [server].env. */
export function processEnv(baseEnv: NodeJS.ProcessEnv, input: Omit<EngineEnvInput, 'mode'>): Record<string, string> {
  return { ...baseEnvironment(baseEnv), ...slotEnv({ ...input, mode: 'process' }) };
}
