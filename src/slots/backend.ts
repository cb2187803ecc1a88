// The configured device against the backend the engine really uses (issue 10, item 1.5):
// a gpu-vulkan slot on a host without a GPU still turns ready, on the CPU; the view and the
// activity log say so instead of leaving it to the engine log. Pure.
import type { EngineRuntimeInfo } from '../engines/types.js';

/** The backend a configured device asks for; null where no comparison applies (npu). */
export function backendOfDevice(device: string): string | null {
  if (device === 'cpu') return 'cpu';
  return device.startsWith('gpu-') ? device.slice('gpu-'.length) : null;
}

/** One warning per mismatch between the slot's device and what its engine reported; none when unknown. */
export function backendWarnings(device: string, info: EngineRuntimeInfo | null): string[] {
  const wanted = backendOfDevice(device);
  if (!info?.backend || wanted === null || wanted === info.backend) return [];
  const layers = info.gpuLayers ? ` (${info.gpuLayers.offloaded}${info.gpuLayers.total === null ? '' : ` of ${info.gpuLayers.total}`} layers on a GPU)` : '';
  if (info.backend === 'cpu') {
    return [`device is ${device}, but the engine runs on the CPU${layers}: no GPU build of the engine, or no GPU it can use (see the engine log)`];
  }
  return [`device is ${device}, but the engine runs on ${info.backend}${layers}`];
}

/** What a slot that turned ready on another backend than its device asks for reports (activity, events). */
export interface BackendMismatch {
  device: string;
  backend: string | null;
  gpu_layers: EngineRuntimeInfo['gpuLayers'];
  warnings: string[];
}

/** The report for a slot's device and what its engine said it runs on; null when they agree or it is unknown. */
export function backendMismatch(device: string, info: EngineRuntimeInfo | null): BackendMismatch | null {
  const warnings = backendWarnings(device, info);
  return warnings.length === 0 ? null : { device, backend: info?.backend ?? null, gpu_layers: info?.gpuLayers ?? null, warnings };
}
