// The hardware probe payload: what `svc probe` / POST /api/hardware/probe detect, what
// `<config root>/hardware.json` caches and what GET /api/hardware returns. Shared by the
// host layer (which fills it in), the server and the CLI (which prints it).

export const HARDWARE_SCHEMA = 1;

/** Values of `svc slot create --hardware` (and the API's `hardware`), and the slot device each maps onto: every GPU device has one. */
export const HARDWARE_FLAGS = ['vulkan', 'rocm', 'cuda', 'cpu'] as const;
export type HardwareFlag = (typeof HARDWARE_FLAGS)[number];
export const HARDWARE_DEVICE: Readonly<Record<HardwareFlag, 'gpu-vulkan' | 'gpu-rocm' | 'gpu-cuda' | 'cpu'>> = {
  vulkan: 'gpu-vulkan',
  rocm: 'gpu-rocm',
  cuda: 'gpu-cuda',
  cpu: 'cpu',
};

export type GpuVendor = 'amd' | 'nvidia' | 'intel' | 'other' | 'unknown';
/** Slot device values a GPU suits. */
export type GpuDeviceValue = 'gpu-rocm' | 'gpu-cuda' | 'gpu-vulkan';

export const PROBE_TOOLS = ['rocm-smi', 'nvidia-smi', 'vulkaninfo', 'podman', 'docker'] as const;
export type ProbeTool = (typeof PROBE_TOOLS)[number];

export interface CpuProbe {
  model: string;
  arch: string;
  /** Physical cores (from /proc/cpuinfo; the thread count where it does not say). */
  cores: number;
  /** Logical CPUs. */
  threads: number;
  /** The SIMD/matrix features that matter to inference engines, where the kernel lists them (avx2, avx512f, …). */
  flags: string[];
}

export interface MemoryProbe {
  total_mb: number;
  /** MemAvailable on Linux, else free memory; a snapshot at probe time. */
  available_mb: number;
}

export interface GpuProbe {
  /** The DRM card: card0, card1, … */
  card: string;
  vendor: GpuVendor;
  /** Human name of the vendor: AMD, NVIDIA, Intel, or the PCI vendor id. */
  vendor_name: string;
  /** PCI ids as the kernel prints them ("0x1002"), or null where unreadable. */
  vendor_id: string | null;
  device_id: string | null;
  /** Kernel driver (amdgpu, nvidia, i915, xe, …). */
  driver: string | null;
  /** PCI address ("0000:03:00.0"). */
  pci_slot: string | null;
  /** Dedicated VRAM; null where the driver does not say. */
  vram_mb: number | null;
  /** Where vram_mb came from. */
  vram_source: 'sysfs' | 'nvidia-smi' | null;
  /** GPU-addressable system memory (amdgpu GTT); what an integrated GPU really uses. */
  gtt_mb: number | null;
  /** The render node engines open, e.g. /dev/dri/renderD128. */
  render_node: string | null;
  /** true: integrated (shares system RAM); false: discrete; null: not knowable. A best guess for AMD. */
  integrated: boolean | null;
  /** Slot device values this GPU suits. */
  devices: GpuDeviceValue[];
}

export interface NpuProbe {
  /** accel0, accel1, … */
  name: string;
  /** Device node, e.g. /dev/accel/accel0; null when only sysfs lists it. */
  path: string | null;
  driver: string | null;
  /** A human name for the driver: amdxdna → "AMD XDNA". */
  kind: string;
  pci_slot: string | null;
  /** Slot device values this NPU suits. */
  devices: Array<'npu'>;
}

export interface ToolProbe {
  present: boolean;
  path: string | null;
}

export interface HardwareProbe {
  schema: typeof HARDWARE_SCHEMA;
  probed_at: string;
  svc_version: string;
  host: { hostname: string; platform: string; kernel: string };
  cpu: CpuProbe;
  memory: MemoryProbe;
  gpus: GpuProbe[];
  npus: NpuProbe[];
  tools: Record<ProbeTool, ToolProbe>;
  /** /dev/kfd exists: the ROCm compute interface is there. */
  kfd: boolean;
  /** The default for `svc slot create --hardware`. */
  recommended: HardwareFlag;
  /** Why that default, in a sentence. */
  recommended_reason: string;
}

export function isHardwareFlag(value: unknown): value is HardwareFlag {
  return typeof value === 'string' && (HARDWARE_FLAGS as readonly string[]).includes(value);
}

/** A cached probe as read back: the current schema and the fields every reader uses. */
export function isHardwareProbe(value: unknown): value is HardwareProbe {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return v.schema === HARDWARE_SCHEMA
    && typeof v.cpu === 'object' && v.cpu !== null
    && typeof v.memory === 'object' && v.memory !== null
    && Array.isArray(v.gpus) && Array.isArray(v.npus)
    && typeof v.tools === 'object' && v.tools !== null
    && isHardwareFlag(v.recommended);
}

// The probe's memory, summed in one place: the pull fit check, a stack's estimate (through
// host/capacity.ts), `svc setup`'s choices and `svc doctor`'s memory check.
/** The VRAM of every probed GPU, summed; a GPU whose VRAM is unknown adds nothing. */
export function vramTotalMb(probe: Pick<HardwareProbe, 'gpus'> | null): number {
  return (probe?.gpus ?? []).reduce((sum, gpu) => sum + (gpu.vram_mb ?? 0), 0);
}

/** Total RAM and VRAM as the probe found them (no probe: 0 and 0). */
export function memoryOf(probe: Pick<HardwareProbe, 'gpus' | 'memory'> | null): { ramMb: number; vramMb: number } {
  return { ramMb: probe?.memory.total_mb ?? 0, vramMb: vramTotalMb(probe) };
}
