// The hardware probe: CPU and RAM, GPUs through sysfs/DRM, an NPU through /dev/accel, and
// the GPU and container tools on PATH. It only reads files and looks at PATH; the one
// program it may run is nvidia-smi (for NVIDIA VRAM, which sysfs does not show), bounded
// by a short timeout. Every root is injectable so tests can point it at a fake tree.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { readdir, readFile, readlink, realpath, stat } from 'node:fs/promises';
import { arch, cpus, freemem, hostname, platform, release, totalmem } from 'node:os';
import { basename, delimiter, isAbsolute, join } from 'node:path';
import { writeFileAtomic } from '../config/atomic.js';
import type { SvcPaths } from '../config/paths.js';
import {
  HARDWARE_SCHEMA,
  isHardwareProbe,
  PROBE_TOOLS,
  type CpuProbe,
  type GpuDeviceValue,
  type GpuProbe,
  type GpuVendor,
  type HardwareProbe,
  type MemoryProbe,
  type NpuProbe,
  type ProbeTool,
  type ToolProbe,
} from '../protocol/hardware.js';
import { ConfigError } from '../protocol/errors.js';
import { VERSION } from '../lib/version.js';

import { recommendHardware } from './recommend.js';

export interface ProbeOptions {
  /** Where sysfs is mounted (default /sys). */
  sysRoot?: string;
  /** Where device nodes live (default /dev). */
  devRoot?: string;
  /** Where procfs is mounted (default /proc): cpuinfo and meminfo. */
  procRoot?: string;
  /** Finds a tool on PATH; returns its path or null. */
  which?: (tool: string) => string | null;
  /** Runs a tool with a time limit and returns its stdout, or null when it fails or times out. */
  runTool?: (path: string, args: string[], timeoutMs: number) => Promise<string | null>;
}

/** nvidia-smi can hang when the driver is wedged; never wait longer than this. */
export const TOOL_TIMEOUT_MS = 3_000;

const MiB = 1024 * 1024;

/** SIMD and matrix features inference engines care about, in the order they are shown. */
const NOTABLE_CPU_FLAGS = [
  'sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx_vnni',
  'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni', 'avx512_bf16', 'avx512_fp16',
  'amx_tile', 'amx_int8', 'amx_bf16',
  // arm64 ("Features" in /proc/cpuinfo)
  'asimd', 'asimddp', 'asimdhp', 'i8mm', 'bf16', 'sve', 'sve2',
];

const VENDORS: Record<string, { vendor: GpuVendor; name: string }> = {
  '0x1002': { vendor: 'amd', name: 'AMD' },
  '0x10de': { vendor: 'nvidia', name: 'NVIDIA' },
  '0x8086': { vendor: 'intel', name: 'Intel' },
};

/** DRM cards that are firmware framebuffers, not GPUs. */
const FRAMEBUFFER_DRIVERS = new Set(['simple-framebuffer', 'simpledrm', 'efi-framebuffer', 'vesa-framebuffer', 'ofdrm', 'vkms']);

/** Accelerator drivers by name; the ones svc can run engines on get the `npu` device. */
const NPU_DRIVERS: Record<string, { kind: string; npu: boolean }> = {
  amdxdna: { kind: 'AMD XDNA', npu: true },
  intel_vpu: { kind: 'Intel NPU', npu: false },
  habanalabs: { kind: 'Intel Gaudi', npu: false },
  qaic: { kind: 'Qualcomm Cloud AI', npu: false },
};

/** An AMD GPU with at most this much VRAM and more GTT than VRAM is taken for an integrated one (a BIOS carve-out). */
const IGPU_MAX_VRAM_MB = 2048;
const INTEL_IGPU_SLOT = '0000:00:02.0';
const PCI_SLOT = /^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i;

export async function probeHardware(options: ProbeOptions = {}): Promise<HardwareProbe> {
  const sysRoot = options.sysRoot ?? '/sys';
  const devRoot = options.devRoot ?? '/dev';
  const procRoot = options.procRoot ?? '/proc';
  const which = options.which ?? whichOnPath;
  const runTool = options.runTool ?? runWithTimeout;

  const tools = Object.fromEntries(PROBE_TOOLS.map((tool) => {
    const path = which(tool);
    return [tool, { present: path !== null, path } satisfies ToolProbe];
  })) as Record<ProbeTool, ToolProbe>;

  const [cpu, memory, gpus, npus, kfd] = await Promise.all([
    probeCpu(procRoot),
    probeMemory(procRoot),
    probeGpus(sysRoot, devRoot),
    probeNpus(sysRoot, devRoot),
    exists(join(devRoot, 'kfd')),
  ]);

  const nvidiaSmi = tools['nvidia-smi'].path;
  if (nvidiaSmi && gpus.some((gpu) => gpu.vendor === 'nvidia' && gpu.vram_mb === null && gpu.driver !== 'nouveau')) {
    await fillNvidiaVram(gpus, await runTool(nvidiaSmi, ['--query-gpu=pci.bus_id,memory.total', '--format=csv,noheader,nounits'], TOOL_TIMEOUT_MS));
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

// --- CPU and memory ---------------------------------------------------------------------

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

// --- GPUs -------------------------------------------------------------------------------

export async function probeGpus(sysRoot: string, devRoot: string): Promise<GpuProbe[]> {
  const drm = join(sysRoot, 'class/drm');
  // card0, card1, … — not the connectors (card0-HDMI-A-1) nor the render nodes.
  const cards = (await list(drm)).filter((name) => /^card\d+$/.test(name)).sort(byNumber);
  const gpus: GpuProbe[] = [];
  for (const card of cards) {
    const gpu = await probeCard(join(drm, card, 'device'), card, devRoot);
    if (gpu) gpus.push(gpu);
  }
  return gpus;
}

async function probeCard(device: string, card: string, devRoot: string): Promise<GpuProbe | null> {
  const uevent = parseUevent(await readText(join(device, 'uevent')));
  const driver = (await linkName(join(device, 'driver'))) ?? uevent.DRIVER ?? null;
  if (driver && FRAMEBUFFER_DRIVERS.has(driver)) return null;

  const vendorId = (await readText(join(device, 'vendor')))?.toLowerCase() ?? null;
  const deviceId = (await readText(join(device, 'device')))?.toLowerCase() ?? null;
  const known = vendorId ? VENDORS[vendorId] : undefined;
  const vendor: GpuVendor = known?.vendor ?? (vendorId ? 'other' : 'unknown');
  const pciSlot = await pciSlotOf(device, uevent);
  const renderD = (await list(join(device, 'drm'))).filter((name) => /^renderD\d+$/.test(name)).sort(byNumber)[0];

  const vram = await readMb(join(device, 'mem_info_vram_total'));
  const gtt = await readMb(join(device, 'mem_info_gtt_total'));

  return {
    card,
    vendor,
    vendor_name: known?.name ?? vendorId ?? 'unknown',
    vendor_id: vendorId,
    device_id: deviceId,
    driver,
    pci_slot: pciSlot,
    vram_mb: vram,
    vram_source: vram === null ? null : 'sysfs',
    gtt_mb: gtt,
    render_node: renderD ? join(devRoot, 'dri', renderD) : null,
    integrated: integratedGuess(vendor, pciSlot, vram, gtt),
    devices: devicesFor(vendor, driver),
  };
}

/** The slot devices a GPU suits: AMD → ROCm and Vulkan, NVIDIA → CUDA and Vulkan, Intel → Vulkan. */
export function devicesFor(vendor: GpuVendor, driver: string | null): GpuDeviceValue[] {
  switch (vendor) {
    case 'amd':
      // The pre-GCN `radeon` driver has neither ROCm nor RADV.
      return driver === 'radeon' ? [] : ['gpu-rocm', 'gpu-vulkan'];
    case 'nvidia':
      // nouveau has Vulkan (NVK) but no CUDA.
      return driver === 'nouveau' ? ['gpu-vulkan'] : ['gpu-cuda', 'gpu-vulkan'];
    case 'intel':
      return ['gpu-vulkan'];
    default:
      return [];
  }
}

function integratedGuess(vendor: GpuVendor, pciSlot: string | null, vramMb: number | null, gttMb: number | null): boolean | null {
  switch (vendor) {
    case 'amd':
      if (vramMb === null) return null;
      if (vramMb <= IGPU_MAX_VRAM_MB && gttMb !== null && gttMb > vramMb) return true;
      return vramMb > IGPU_MAX_VRAM_MB ? false : null;
    case 'nvidia':
      return pciSlot ? false : null;
    case 'intel':
      return pciSlot ? pciSlot === INTEL_IGPU_SLOT : null;
    default:
      return null;
  }
}

/** nvidia-smi's `pci.bus_id, memory.total` CSV, matched onto the cards by PCI address. */
async function fillNvidiaVram(gpus: GpuProbe[], csv: string | null): Promise<void> {
  if (!csv) return;
  for (const line of csv.split('\n')) {
    const [bus, total] = line.split(',').map((s) => s.trim());
    const mb = Number(total);
    const slot = bus ? normalisePciSlot(bus) : null;
    if (!slot || !Number.isFinite(mb) || mb <= 0) continue;
    const gpu = gpus.find((g) => g.vendor === 'nvidia' && g.pci_slot === slot);
    if (gpu && gpu.vram_mb === null) {
      gpu.vram_mb = Math.round(mb);
      gpu.vram_source = 'nvidia-smi';
    }
  }
}

/** "00000000:01:00.0" (nvidia-smi) and "0000:01:00.0" (sysfs) → "0000:01:00.0". */
export function normalisePciSlot(value: string): string | null {
  const match = /^([0-9a-f]+):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(value.trim());
  if (!match) return null;
  const [, domain = '0', bus, dev, fn] = match;
  return `${parseInt(domain, 16).toString(16).padStart(4, '0')}:${bus}:${dev}.${fn}`.toLowerCase();
}

// --- NPUs -------------------------------------------------------------------------------

export async function probeNpus(sysRoot: string, devRoot: string): Promise<NpuProbe[]> {
  const isAccel = (name: string) => /^accel\d+$/.test(name);
  const nodes = (await list(join(devRoot, 'accel'))).filter(isAccel);
  const names = [...new Set([...nodes, ...(await list(join(sysRoot, 'class/accel'))).filter(isAccel)])].sort(byNumber);
  const npus: NpuProbe[] = [];
  for (const name of names) {
    const device = join(sysRoot, 'class/accel', name, 'device');
    const uevent = parseUevent(await readText(join(device, 'uevent')));
    const driver = (await linkName(join(device, 'driver'))) ?? uevent.DRIVER ?? null;
    const known = driver ? NPU_DRIVERS[driver] : undefined;
    npus.push({
      name,
      path: nodes.includes(name) ? join(devRoot, 'accel', name) : null,
      driver,
      kind: known?.kind ?? (driver ? `${driver} accelerator` : 'unknown accelerator'),
      pci_slot: await pciSlotOf(device, uevent),
      devices: known?.npu ? ['npu'] : [],
    });
  }
  return npus;
}

// --- hardware.json ----------------------------------------------------------------------

export function hardwareJsonPath(paths: Pick<SvcPaths, 'configRoot'>): string {
  return join(paths.configRoot, 'hardware.json');
}

/** Write `<config root>/hardware.json` atomically; a failure leaves the previous file. */
export async function writeHardwareJson(paths: Pick<SvcPaths, 'configRoot'>, probe: HardwareProbe): Promise<string> {
  const target = hardwareJsonPath(paths);
  try {
    await writeFileAtomic(target, `${JSON.stringify(probe, null, 2)}\n`);
  } catch (error) {
    throw new ConfigError('config.write_failed', `could not write ${target}: ${(error as Error).message}; the previous file is unchanged`, { file: target }, { cause: error });
  }
  return target;
}

/** The cached probe; null when it is missing, unreadable, not JSON or not this schema. */
export async function readHardwareJson(paths: Pick<SvcPaths, 'configRoot'>): Promise<HardwareProbe | null> {
  const text = await readText(hardwareJsonPath(paths), false);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return isHardwareProbe(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

// --- tools ------------------------------------------------------------------------------

/** The first executable `tool` on PATH, like `command -v`; runs nothing. */
export function whichOnPath(tool: string, pathEnv: string | undefined = process.env.PATH): string | null {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, tool);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** The probe's way to run a tool: its stdout, or null when it fails or outlives `timeoutMs` (then it is killed). */
export function runWithTimeout(path: string, args: string[], timeoutMs: number): Promise<string | null> {
  return new Promise((done) => {
    execFile(path, args, { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, encoding: 'utf8' }, (error, stdout) => done(error ? null : stdout));
  });
}

// --- small helpers ----------------------------------------------------------------------

async function readText(path: string, trim = true): Promise<string | null> {
  try {
    const text = await readFile(path, 'utf8');
    return trim ? text.trim() : text;
  } catch {
    return null;
  }
}

async function readMb(path: string): Promise<number | null> {
  const text = await readText(path);
  if (text === null || !/^\d+$/.test(text)) return null;
  return Math.floor(Number(text) / MiB);
}

async function list(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The basename of a symlink's target (sysfs `driver` → "amdgpu"), without needing the target. */
async function linkName(path: string): Promise<string | null> {
  try {
    return basename(await readlink(path)) || null;
  } catch {
    return null;
  }
}

async function pciSlotOf(device: string, uevent: Record<string, string>): Promise<string | null> {
  let name = await linkName(device);
  if (!name || !PCI_SLOT.test(name)) {
    try {
      name = basename(await realpath(device));
    } catch {
      name = null;
    }
  }
  if (name && PCI_SLOT.test(name)) return name.toLowerCase();
  return uevent.PCI_SLOT_NAME ? normalisePciSlot(uevent.PCI_SLOT_NAME) : null;
}

function parseUevent(text: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of (text ?? '').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1).trim();
  }
  return out;
}

function byNumber(a: string, b: string): number {
  return Number(/\d+$/.exec(a)?.[0] ?? 0) - Number(/\d+$/.exec(b)?.[0] ?? 0);
}
