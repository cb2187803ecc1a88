// The CPU and RAM part of the hardware probe: /proc/cpuinfo (model, cores, threads, the SIMD
// and matrix flags inference engines care about) and /proc/meminfo, with Node's os module as
// the fallback where procfs is missing or says less.
import { arch, cpus, freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import type { CpuProbe, MemoryProbe } from '../../protocol/hardware.js';
import { MiB, readText } from './sysfs.js';

/** SIMD and matrix features inference engines care about, in the order they are shown. */
const NOTABLE_CPU_FLAGS = [
  'sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx_vnni',
  'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16',
  'amx_tile', 'amx_int8', 'amx_bf16',
  // arm64 ("Features" in /proc/cpuinfo)
  'asimd', 'asimddp', 'asimdhp', 'i8mm', 'bf16', 'sve', 'sve2',
];

export async function probeCpu(procRoot: string): Promise<CpuProbe> {
  const osCpus = cpus();
  const osThreads = Math.max(1, osCpus.length);
  const text = await readText(join(procRoot, 'cpuinfo'));
  const blocks = text ? parseCpuinfo(text) : [];
  const processors = blocks.filter((b) => b.processor !== undefined);
  const first = processors[0] ?? blocks[0] ?? {};
  const threads = processors.length > 0 ? processors.length : osThreads;

  const coreIds = new Set(processors.filter((b) => b['core id'] !== undefined).map((b) => `${b['physical id'] ?? '0'}:${b['core id']}`));
  const cores = coreIds.size > 0 ? coreIds.size : threads;

  const model = first['model name'] ?? first['Model'] ?? first['Hardware'] ?? first['cpu model'] ?? osCpus[0]?.model.trim() ?? 'unknown';
  const present = new Set((first.flags ?? first.Features ?? '').split(/\s+/).filter(Boolean));
  return { model: model.trim() || 'unknown', arch: arch(), cores, threads, flags: NOTABLE_CPU_FLAGS.filter((f) => present.has(f)) };
}

/** /proc/cpuinfo as one record per blank-line-separated block. */
export function parseCpuinfo(text: string): Array<Record<string, string>> {
  return text.split(/\n\s*\n/).map((block) => {
    const record: Record<string, string> = {};
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim();
      if (key && record[key] === undefined) record[key] = line.slice(colon + 1).trim();
    }
    return record;
  }).filter((record) => Object.keys(record).length > 0);
}

export async function probeMemory(procRoot: string): Promise<MemoryProbe> {
  const text = await readText(join(procRoot, 'meminfo'));
  const kb = (key: string) => {
    const match = text ? new RegExp(`^${key}:\\s+(\\d+) kB$`, 'm').exec(text) : null;
    return match ? Math.floor(Number(match[1]) / 1024) : undefined;
  };
  return {
    total_mb: kb('MemTotal') ?? Math.floor(totalmem() / MiB),
    available_mb: kb('MemAvailable') ?? Math.floor(freemem() / MiB),
  };
}
