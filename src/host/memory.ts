// Live facts about the host that slot policy needs: memory above all (memory-pressure
// eviction compares MemAvailable with [slots].evict_pressure_mb).
import { readFileSync } from 'node:fs';
import { arch, cpus, freemem, hostname, platform, totalmem } from 'node:os';

export interface HostSnapshot {
  hostname: string;
  platform: string;
  arch: string;
  cpu_count: number;
  cpu_model: string;
  mem_total_mb: number;
  /** MemAvailable on Linux (what the kernel can hand out without swapping), else free memory. */
  mem_available_mb: number;
}

const MiB = 1024 * 1024;

export function availableMemoryMb(): number {
  try {
    const match = /^MemAvailable:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
    if (match) return Math.floor(Number(match[1]) / 1024);
  } catch {
    // Not Linux: fall through.
  }
  return Math.floor(freemem() / MiB);
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
