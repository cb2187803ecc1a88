// Which `--hardware` svc recommends for this host, and what `svc slot create` defaults to:
// host policy over the probe (host/hardware.ts fills in `recommended` with it), not wire shape.
import { isHardwareFlag, type GpuProbe, type HardwareFlag, type HardwareProbe } from '../protocol/hardware.js';

/** The default `--hardware` when there is no probe (SPEC, CLI table: "`vulkan` if no probe"). */
export const FALLBACK_HARDWARE: HardwareFlag = 'vulkan';

/** What `svc slot create --hardware` defaults to: the probe's recommendation, else `vulkan`. */
export function defaultHardware(probe: HardwareProbe | null): HardwareFlag {
  return probe && isHardwareFlag(probe.recommended) ? probe.recommended : FALLBACK_HARDWARE;
}

/**
 * The recommendation rule: `rocm` for an AMD GPU with ROCm present (rocm-smi on PATH or
 * /dev/kfd), else `vulkan` for any GPU an engine can use, else `cpu`.
 */
export function recommendHardware(facts: { gpus: readonly GpuProbe[]; rocmSmi: boolean; kfd: boolean }): { flag: HardwareFlag; reason: string } {
  const usable = facts.gpus.filter((gpu) => gpu.devices.length > 0);
  const amd = usable.find((gpu) => gpu.vendor === 'amd');
  if (amd && (facts.rocmSmi || facts.kfd)) {
    const via = [facts.kfd && '/dev/kfd', facts.rocmSmi && 'rocm-smi'].filter(Boolean).join(' and ');
    return { flag: 'rocm', reason: `AMD GPU ${amd.card} with ROCm present (${via})` };
  }
  if (amd) return { flag: 'vulkan', reason: `AMD GPU ${amd.card} without ROCm (no rocm-smi, no /dev/kfd)` };
  const first = usable[0];
  if (first) return { flag: 'vulkan', reason: `${first.vendor_name} GPU ${first.card}` };
  return { flag: 'cpu', reason: 'no GPU an engine can use' };
}
