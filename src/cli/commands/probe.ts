// svc probe: re-run hardware detection on the server (POST /api/hardware/probe), which
// caches the result in hardware.json, and print it. `svc config hardware` prints the cached
// probe with the same summary.
import type { GpuProbe, HardwareProbe, NpuProbe } from '../../protocol/hardware.js';
import { HARDWARE_DEVICE, PROBE_TOOLS } from '../../protocol/hardware.js';
import type { ApiClient } from '../client.js';
import { print, printJson } from '../output.js';

export async function probeCommand(client: ApiClient, options: { json?: boolean }): Promise<void> {
  const probe = await client.probeHardware();
  if (options.json) return printJson(probe);
  for (const line of hardwareSummary(probe)) print(line);
}

/** A readable summary of a probe: one line per fact, a label column then the value; `head` lines go first. */
export function hardwareSummary(probe: HardwareProbe, head: Array<[label: string, value: string]> = []): string[] {
  const lines: Array<[string, string]> = [...head];
  const { cpu, memory } = probe;
  const flags = cpu.flags.length > 0 ? `; ${cpu.flags.join(' ')}` : '';
  lines.push(['cpu', `${cpu.model} (${cpu.arch}, ${cpu.cores} cores, ${cpu.threads} threads${flags})`]);
  lines.push(['memory', `${memory.total_mb} MiB total, ${memory.available_mb} MiB available when probed`]);
  if (probe.gpus.length === 0) lines.push(['gpu', 'none found']);
  for (const gpu of probe.gpus) lines.push([`gpu ${gpu.card}`, gpuLine(gpu)]);
  if (probe.npus.length === 0) lines.push(['npu', 'none found']);
  for (const npu of probe.npus) lines.push([`npu ${npu.name}`, npuLine(npu)]);
  const present = PROBE_TOOLS.filter((t) => probe.tools[t]?.present);
  const missing = PROBE_TOOLS.filter((t) => !probe.tools[t]?.present);
  lines.push(['tools', [present.map((t) => `${t} (${probe.tools[t].path})`).join(', ') || 'none', missing.length ? `not found: ${missing.join(', ')}` : ''].filter(Boolean).join('; ')]);
  if (probe.kfd) lines.push(['rocm', '/dev/kfd present']);
  lines.push(['recommended', `--hardware ${probe.recommended} (device ${HARDWARE_DEVICE[probe.recommended]}): ${probe.recommended_reason}`]);
  lines.push(['probed', `${probe.probed_at} by svc ${probe.svc_version}, cached in hardware.json`]);
  const width = Math.max(...lines.map(([label]) => label.length)) + 2;
  return lines.map(([label, value]) => `${label.padEnd(width)}${value}`);
}

function gpuLine(gpu: GpuProbe): string {
  const ids = [gpu.vendor_name, gpu.device_id].filter(Boolean).join(' ');
  const memory = [gpu.vram_mb !== null && `${gpu.vram_mb} MiB VRAM`, gpu.gtt_mb !== null && `${gpu.gtt_mb} MiB GTT`].filter(Boolean).join(' + ') || 'VRAM unknown';
  const kind = gpu.integrated === null ? '' : gpu.integrated ? ', integrated' : ', discrete';
  const parts = [
    `${ids}, driver ${gpu.driver ?? 'unknown'}`,
    `${memory}${kind}`,
    gpu.pci_slot && `pci ${gpu.pci_slot}`,
    gpu.render_node,
    gpu.devices.length ? `suits ${gpu.devices.join(', ')}` : 'no engine backend',
  ];
  return parts.filter(Boolean).join('; ');
}

function npuLine(npu: NpuProbe): string {
  return [
    `${npu.kind}, driver ${npu.driver ?? 'unknown'}`,
    npu.path,
    npu.pci_slot && `pci ${npu.pci_slot}`,
    npu.devices.length ? `suits ${npu.devices.join(', ')}` : 'no svc engine',
  ].filter(Boolean).join('; ');
}
