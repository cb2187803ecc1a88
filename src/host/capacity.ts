// How much memory a model about to load can use: the RAM available now plus the probed VRAM
// (the pull fit check, a stack's memory estimate). VRAM comes from the probe (hardware.json):
// nothing cheaper reads it, and it does not change while the host runs. What the host has in
// all (which model suits this host?) is memoryOf in protocol/hardware.ts, a pure sum over the
// probe, which `svc setup` and `svc doctor` use without loading the host layer.
import type { SvcPaths } from '../config/paths.js';
import { vramTotalMb } from '../protocol/hardware.js';
import { readHardwareJson } from './hardware.js';
import { readAvailableMemoryMb } from './memory.js';

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
