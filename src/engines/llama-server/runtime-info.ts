// What a llama-server really runs on, read from its log (it has no HTTP route that says).
// At llama-server's default verbosity (3) the log says little about devices:
//   - a build without GPU support, or with no usable GPU, warns at argument parsing:
//     "warning: no usable GPU found, --gpu-layers option will be ignored" (-ngl is always
//     passed): the CPU computes every layer;
//   - at verbosity 4 (`-lv 4` in [server].extra_args) and in older llama.cpp builds, the load
//     log has "load_tensors: offloaded 33/33 layers to GPU" and one "<device> model buffer
//     size" line per device (CUDA0, ROCm0, Vulkan0, MTL0, CPU_Mapped), and CUDA/ROCm builds
//     announce "ggml_cuda_init: found 1 CUDA devices".
// Parsed defensively: the last engine's lines only, each fact from its own line, and what
// is not said stays null. With -ngl 0 nothing goes to a GPU, whatever the build.
import { flagValue } from '../argv.js';
import type { EngineRuntimeInfo } from '../types.js';
import type { SlotBackend } from '../../protocol/slots.js';

const NO_GPU = /no usable GPU found/;
const OFFLOADED = /offloaded (\d+)\/(\d+) layers to GPU/;
/** Model buffers name the device that holds weights; device announcements come second. */
const BUFFER_DEVICES: ReadonlyArray<[RegExp, SlotBackend]> = [
  [/\bCUDA\d+ model buffer size/, 'cuda'],
  [/\bROCm\d+ model buffer size/, 'rocm'],
  [/\bVulkan\d+ model buffer size/, 'vulkan'],
  [/\b(MTL\d*|Metal) model buffer size/, 'metal'],
];
const ANNOUNCED_DEVICES: ReadonlyArray<[RegExp, SlotBackend]> = [
  [/found \d+ CUDA devices/, 'cuda'],
  [/found \d+ ROCm devices/, 'rocm'],
  [/ggml_vulkan: Found \d+ Vulkan devices/, 'vulkan'],
  [/ggml_metal_init: found device/, 'metal'],
];

export function parseLlamaServerLog(lines: readonly string[], args: readonly string[]): EngineRuntimeInfo {
  const offloaded = lastMatch(lines, OFFLOADED);
  const layers = offloaded ? { offloaded: Number(offloaded[1]), total: Number(offloaded[2]) } : null;
  if (lines.some((line) => NO_GPU.test(line))) return { backend: 'cpu', gpuLayers: { offloaded: 0, total: layers?.total ?? null } };
  if (layers?.offloaded === 0 || (!layers && requestedGpuLayers(args) === 0)) return { backend: 'cpu', gpuLayers: layers ?? { offloaded: 0, total: null } };
  return { backend: firstDevice(lines, BUFFER_DEVICES) ?? firstDevice(lines, ANNOUNCED_DEVICES), gpuLayers: layers };
}

function lastMatch(lines: readonly string[], pattern: RegExp): RegExpExecArray | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = pattern.exec(lines[i]!);
    if (match) return match;
  }
  return null;
}

function firstDevice(lines: readonly string[], patterns: ReadonlyArray<[RegExp, SlotBackend]>): SlotBackend | null {
  for (const line of lines) for (const [pattern, backend] of patterns) if (pattern.test(line)) return backend;
  return null;
}

/** -ngl (any spelling) as passed, the last one winning as in llama-server; undefined for auto/all or absent. */
function requestedGpuLayers(args: readonly string[]): number | undefined {
  const value = flagValue(args, '-ngl');
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}
