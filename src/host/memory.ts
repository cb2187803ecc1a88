// Live facts about the host that slot policy needs: memory above all (memory-pressure
// eviction compares MemAvailable with [slots].evict_pressure_mb).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { arch, cpus, freemem, hostname, platform, totalmem } from 'node:os';

import type { HostSnapshot } from '../protocol/system.js';
export type { HostSnapshot };

const MiB = 1024 * 1024;

export function availableMemoryMb(): number {
  let meminfo: string | undefined;
  try {
    meminfo = readFileSync('/proc/meminfo', 'utf8');
  } catch {
    // Not Linux: free memory below.
  }
  return memAvailableFrom(meminfo);
}

/** availableMemoryMb without blocking the event loop (the slot supervisor's tick, while requests flow). */
export async function readAvailableMemoryMb(): Promise<number> {
  return memAvailableFrom(await readFile('/proc/meminfo', 'utf8').catch(() => undefined));
}

function memAvailableFrom(meminfo: string | undefined): number {
  const match = meminfo === undefined ? null : /^MemAvailable:\s+(\d+) kB$/m.exec(meminfo);
  return match ? Math.floor(Number(match[1]) / 1024) : Math.floor(freemem() / MiB);
}

export function hostSnapshot(): HostSnapshot {
  const cpuList = cpus();
  return {
    hostname: hostname(),
    platform: platform(),
    arch: arch(),
    cpu_count: cpuList.length,
    cpu_model: cpuList[0]?.model.trim() ?? 'unknown',
    mem_total_mb: Math.floor(totalmem() / MiB),
    mem_available_mb: availableMemoryMb(),
  };
}
