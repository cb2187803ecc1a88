// The NPU part of the hardware probe: accelerators under /dev/accel and sysfs's class/accel,
// named by their driver. Only the ones svc can run engines on (amdxdna, through FLM) get the
// `npu` slot device; the others are listed so `svc doctor` can say what the host has.
import { join } from 'node:path';
import type { NpuProbe } from '../../protocol/hardware.js';
import { byNumber, linkName, list, parseUevent, pciSlotOf, readText } from './sysfs.js';

/** Accelerator drivers by name; the ones svc can run engines on get the `npu` device. */
const NPU_DRIVERS: Record<string, { kind: string; npu: boolean }> = {
  amdxdna: { kind: 'AMD XDNA', npu: true },
  intel_vpu: { kind: 'Intel NPU', npu: false },
  habanalabs: { kind: 'Intel Gaudi', npu: false },
  qaic: { kind: 'Qualcomm Cloud AI', npu: false },
};

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
