// How much memory the host can give models, the one place the figure is summed (the pull fit
// check, a stack's memory estimate, `svc setup`'s choices and `svc doctor`'s memory check).
// VRAM comes from the probe (hardware.json): nothing cheaper reads it, and it does not change
// while the host runs. Two RAM figures, for two questions: what is available now (can this
// model load next?) and what the host has in all (which model suits this host?).
import type { SvcPaths } from '../config/paths.js';
import type { HardwareProbe } from '../protocol/hardware.js';
import { readHardwareJson } from './hardware.js';
import { readAvailableMemoryMb } from './memory.js';

/** The VRAM of every probed GPU, summed; a GPU whose VRAM is unknown adds nothing. */
export function vramTotalMb(probe: Pick<HardwareProbe, 'gpus'> | null): number {
  return (probe?.gpus ?? []).reduce((sum, gpu) => sum + (gpu.vram_mb ?? 0), 0);
}

/** Total RAM and VRAM as the probe found them (no probe: 0 and 0). */
export function memoryOf(probe: Pick<HardwareProbe, 'gpus' | 'memory'> | null): { ramMb: number; vramMb: number } {
  return { ramMb: probe?.memory.total_mb ?? 0, vramMb: vramTotalMb(probe) };
}

export interface HostCapacity {
  /** MemAvailable now (host/memory.ts). */
  ramAvailableMb: number;
  /** The probed GPUs' VRAM (0 before the first probe, or when hardware.json cannot be read). */
  vramMb: number;
}

/** What a model about to load can use: RAM available now plus the probed VRAM. */
export async function hostCapacity(paths: Pick<SvcPaths, 'configRoot'>): Promise<HostCapacity> {
  const probe = await readHardwareJson(paths).catch(() => null);
  return { ramAvailableMb: await readAvailableMemoryMb(), vramMb: vramTotalMb(probe) };
}
