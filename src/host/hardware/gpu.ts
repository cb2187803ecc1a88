// The GPU part of the hardware probe: every DRM card in sysfs that is not a firmware
// framebuffer, with its vendor, driver, PCI address, VRAM and GTT, render node, a guess at
// whether it is integrated, and the slot devices it suits. NVIDIA's VRAM is not in sysfs:
// nvidia-smi's answer fills it in when the probe ran it (fillNvidiaVram).
import { join } from 'node:path';
import type { GpuDeviceValue, GpuProbe, GpuVendor } from '../../protocol/hardware.js';
import { byNumber, linkName, list, normalisePciSlot, parseUevent, pciSlotOf, readMb, readText } from './sysfs.js';

const VENDORS: Record<string, { vendor: GpuVendor; name: string }> = {
  '0x1002': { vendor: 'amd', name: 'AMD' },
  '0x10de': { vendor: 'nvidia', name: 'NVIDIA' },
  '0x8086': { vendor: 'intel', name: 'Intel' },
};

/** DRM cards that are firmware framebuffers, not GPUs. */
const FRAMEBUFFER_DRIVERS = new Set(['simple-framebuffer', 'simpledrm', 'efi-framebuffer', 'vesa-framebuffer', 'ofdrm', 'vkms']);

/** An AMD GPU with at most this much VRAM and more GTT than VRAM is taken for an integrated one (a BIOS carve-out). */
const IGPU_MAX_VRAM_MB = 2048;
const INTEL_IGPU_SLOT = '0000:00:02.0';

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

/** Whether nvidia-smi is worth running: an NVIDIA card on its own driver whose VRAM sysfs did not show. */
export function needsNvidiaVram(gpus: readonly GpuProbe[]): boolean {
  return gpus.some((gpu) => gpu.vendor === 'nvidia' && gpu.vram_mb === null && gpu.driver !== 'nouveau');
}

/** nvidia-smi's `pci.bus_id, memory.total` CSV, matched onto the cards by PCI address. */
export function fillNvidiaVram(gpus: GpuProbe[], csv: string | null): void {
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
