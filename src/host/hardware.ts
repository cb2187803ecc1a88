// The hardware probe: CPU and RAM, GPUs through sysfs/DRM, an NPU through /dev/accel, and
// the GPU and container tools on PATH. It only reads files and looks at PATH; the one
// program it may run is nvidia-smi (for NVIDIA VRAM, which sysfs does not show), bounded
// by a short timeout. Every root is injectable so tests can point it at a fake tree. Each
// part has its file under hardware/ (cpu, gpu, npu, sysfs, tools, hardware-json); this one
// puts them together and is what the rest of svc imports.
import { hostname, platform, release } from 'node:os';
import { join } from 'node:path';
import { HARDWARE_SCHEMA, PROBE_TOOLS, type HardwareProbe, type ProbeTool, type ToolProbe } from '../protocol/hardware.js';
import { VERSION } from '../lib/version.js';
import { probeCpu, probeMemory } from './hardware/cpu.js';
import { fillNvidiaVram, needsNvidiaVram, probeGpus } from './hardware/gpu.js';
import { probeNpus } from './hardware/npu.js';
import { exists } from './hardware/sysfs.js';
import { runWithTimeout, whichOnPath } from './hardware/tools.js';
import { recommendHardware } from './recommend.js';

export { parseCpuinfo, probeCpu, probeMemory } from './hardware/cpu.js';
export { devicesFor, probeGpus } from './hardware/gpu.js';
export { hardwareJsonPath, readHardwareJson, writeHardwareJson } from './hardware/hardware-json.js';
export { probeNpus } from './hardware/npu.js';
export { normalisePciSlot } from './hardware/sysfs.js';
export { runWithTimeout, whichOnPath } from './hardware/tools.js';

export interface ProbeOptions {
  /** Where sysfs is mounted (default /sys). */
  sysRoot?: string;
  /** Where device nodes live (default /dev). */
  devRoot?: string;
  /** Where procfs is mounted (default /proc): cpuinfo and meminfo. */
  procRoot?: string;
  /** Finds a tool on PATH; returns its path or null. */
  which?: (tool: string) => string | null | Promise<string | null>;
  /** Runs a tool with a time limit and returns its stdout, or null when it fails or times out. */
  runTool?: (path: string, args: string[], timeoutMs: number) => Promise<string | null>;
}

/** nvidia-smi can hang when the driver is wedged; never wait longer than this. */
export const TOOL_TIMEOUT_MS = 3_000;

export async function probeHardware(options: ProbeOptions = {}): Promise<HardwareProbe> {
  const sysRoot = options.sysRoot ?? '/sys';
  const devRoot = options.devRoot ?? '/dev';
  const procRoot = options.procRoot ?? '/proc';
  const which = options.which ?? whichOnPath;
  const runTool = options.runTool ?? runWithTimeout;

  const [tools, cpu, memory, gpus, npus, kfd] = await Promise.all([
    findTools(which),
    probeCpu(procRoot),
    probeMemory(procRoot),
    probeGpus(sysRoot, devRoot),
    probeNpus(sysRoot, devRoot),
    exists(join(devRoot, 'kfd')),
  ]);

  const nvidiaSmi = tools['nvidia-smi'].path;
  if (nvidiaSmi && needsNvidiaVram(gpus)) {
    fillNvidiaVram(gpus, await runTool(nvidiaSmi, ['--query-gpu=pci.bus_id,memory.total', '--format=csv,noheader,nounits'], TOOL_TIMEOUT_MS));
  }

  const recommended = recommendHardware({ gpus, rocmSmi: tools['rocm-smi'].present, kfd });
  return {
    schema: HARDWARE_SCHEMA,
    probed_at: new Date().toISOString(),
    svc_version: VERSION,
    host: { hostname: hostname(), platform: platform(), kernel: release() },
    cpu,
    memory,
    gpus,
    npus,
    tools,
    kfd,
    recommended: recommended.flag,
    recommended_reason: recommended.reason,
  };
}

async function findTools(which: NonNullable<ProbeOptions['which']>): Promise<Record<ProbeTool, ToolProbe>> {
  const found = await Promise.all(PROBE_TOOLS.map(async (tool) => {
    const path = await which(tool);
    return [tool, { present: path !== null, path } satisfies ToolProbe] as const;
  }));
  return Object.fromEntries(found) as Record<ProbeTool, ToolProbe>;
}
