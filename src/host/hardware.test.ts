// The hardware probe against a fake /sys, /dev and /proc built in a temp dir: an AMD iGPU
// with its render node and VRAM/GTT counters, an NVIDIA card, connectors and a firmware
// framebuffer that must be ignored, and an AMD XDNA NPU.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../protocol/errors.js';
import { HARDWARE_SCHEMA, isHardwareProbe, type HardwareProbe } from '../protocol/hardware.js';
import { VERSION } from '../lib/version.js';
import {
  hardwareJsonPath,
  normalisePciSlot,
  parseCpuinfo,
  probeHardware,
  readHardwareJson,
  runWithTimeout,
  TOOL_TIMEOUT_MS,
  whichOnPath,
  writeHardwareJson,
  type ProbeOptions,
} from './hardware.js';
import { defaultHardware } from './recommend.js';

const MiB = 1024 * 1024;
const AMD_PCI = 'devices/pci0000:00/0000:00:08.1/0000:c5:00.0';
const NVIDIA_PCI = 'devices/pci0000:00/0000:00:01.1/0000:01:00.0';
const NPU_PCI = 'devices/pci0000:00/0000:00:08.2/0000:c6:00.1';

const CPUINFO = [0, 1, 2, 3].map((n) => [
  `processor\t: ${n}`,
  'vendor_id\t: AuthenticAMD',
  'model name\t: AMD Ryzen AI Max+ 395 w/ Radeon 8060S',
  'physical id\t: 0',
  `core id\t\t: ${n % 2}`,
  'cpu cores\t: 2',
  'flags\t\t: fpu sse sse4_2 avx avx2 fma f16c avx512f avx512bw avx512_vnni lm',
  '',
].join('\n')).join('\n');

const MEMINFO = 'MemTotal:       65536000 kB\nMemFree:        1000000 kB\nMemAvailable:   32768000 kB\n';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-hw-'));
  temps.push(dir);
  return dir;
}

interface FakeHost {
  root: string;
  sys: string;
  dev: string;
  proc: string;
  file(rel: string, text: string): void;
  link(rel: string, target: string): void;
}

function fakeHost(): FakeHost {
  const root = tempDir();
  const host: FakeHost = {
    root,
    sys: join(root, 'sys'),
    dev: join(root, 'dev'),
    proc: join(root, 'proc'),
    file(rel, text) {
      const path = join(root, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    },
    link(rel, target) {
      const path = join(root, rel);
      mkdirSync(dirname(path), { recursive: true });
      symlinkSync(target, path);
    },
  };
  mkdirSync(host.sys, { recursive: true });
  mkdirSync(host.dev, { recursive: true });
  host.file('proc/cpuinfo', CPUINFO);
  host.file('proc/meminfo', MEMINFO);
  return host;
}

/** A PCI device with a DRM card (and render node) under it, linked from /sys/class/drm as the kernel does. */
function addCard(h: FakeHost, pci: string, card: string, render: string | null, files: Record<string, string>, driver: string): void {
  for (const [name, text] of Object.entries(files)) h.file(`sys/${pci}/${name}`, `${text}\n`);
  mkdirSync(join(h.sys, 'bus/pci/drivers', driver), { recursive: true });
  h.link(`sys/${pci}/driver`, `${'../'.repeat(pci.split('/').length)}bus/pci/drivers/${driver}`);
  mkdirSync(join(h.sys, pci, 'drm', card), { recursive: true });
  h.link(`sys/${pci}/drm/${card}/device`, `../../../${pci.split('/').at(-1)}`);
  h.link(`sys/class/drm/${card}`, `../../${pci}/drm/${card}`);
  if (render) {
    mkdirSync(join(h.sys, pci, 'drm', render), { recursive: true });
    h.link(`sys/class/drm/${render}`, `../../${pci}/drm/${render}`);
    h.file(`dev/dri/${render}`, '');
  }
  h.file(`dev/dri/${card}`, '');
}

/** The machine the brief describes: AMD iGPU + NVIDIA dGPU, connectors, a framebuffer card, an XDNA NPU. */
function workstation(): FakeHost {
  const h = fakeHost();
  addCard(h, AMD_PCI, 'card0', 'renderD128', {
    vendor: '0x1002',
    device: '0x1586',
    mem_info_vram_total: String(512 * MiB),
    mem_info_gtt_total: String(32_000 * MiB),
    uevent: 'DRIVER=amdgpu\nPCI_SLOT_NAME=0000:c5:00.0',
  }, 'amdgpu');
  addCard(h, NVIDIA_PCI, 'card1', 'renderD129', { vendor: '0x10de', device: '0x2684' }, 'nvidia');
  // Connectors and other class/drm entries: not GPUs.
  mkdirSync(join(h.sys, AMD_PCI, 'drm/card0/card0-eDP-1'), { recursive: true });
  h.link('sys/class/drm/card0-eDP-1', `../../${AMD_PCI}/drm/card0/card0-eDP-1`);
  mkdirSync(join(h.sys, NVIDIA_PCI, 'drm/card1/card1-HDMI-A-1'), { recursive: true });
  h.link('sys/class/drm/card1-HDMI-A-1', `../../${NVIDIA_PCI}/drm/card1/card1-HDMI-A-1`);
  h.file('sys/class/drm/version', 'drm 1.1.0 20060810\n');
  // The NPU: /dev/accel/accel0 and its sysfs entry.
  h.file('dev/accel/accel0', '');
  h.file(`sys/${NPU_PCI}/vendor`, '0x1022\n');
  mkdirSync(join(h.sys, 'bus/pci/drivers/amdxdna'), { recursive: true });
  h.link(`sys/${NPU_PCI}/driver`, '../../../../bus/pci/drivers/amdxdna');
  mkdirSync(join(h.sys, NPU_PCI, 'accel/accel0'), { recursive: true });
  h.link(`sys/${NPU_PCI}/accel/accel0/device`, '../../../0000:c6:00.1');
  h.link('sys/class/accel/accel0', `../../${NPU_PCI}/accel/accel0`);
  return h;
}

const noTools = () => null;
const options = (h: FakeHost, extra: ProbeOptions = {}): ProbeOptions => ({ sysRoot: h.sys, devRoot: h.dev, procRoot: h.proc, which: noTools, ...extra });

describe('probeHardware on a fake sysfs tree', () => {
  it('finds the two GPUs, ignores connectors, reads vendor, driver, PCI slot, VRAM and render node', async () => {
    const h = workstation();
    const probe = await probeHardware(options(h));

    expect(probe.gpus.map((g) => g.card)).toEqual(['card0', 'card1']);
    const [amd, nvidia] = probe.gpus;
    expect(amd).toEqual({
      card: 'card0',
      vendor: 'amd',
      vendor_name: 'AMD',
      vendor_id: '0x1002',
      device_id: '0x1586',
      driver: 'amdgpu',
      pci_slot: '0000:c5:00.0',
      vram_mb: 512,
      vram_source: 'sysfs',
      gtt_mb: 32_000,
      render_node: join(h.dev, 'dri/renderD128'),
      integrated: true,
      devices: ['gpu-rocm', 'gpu-vulkan'],
    });
    expect(nvidia).toEqual({
      card: 'card1',
      vendor: 'nvidia',
      vendor_name: 'NVIDIA',
      vendor_id: '0x10de',
      device_id: '0x2684',
      driver: 'nvidia',
      pci_slot: '0000:01:00.0',
      vram_mb: null,
      vram_source: null,
      gtt_mb: null,
      render_node: join(h.dev, 'dri/renderD129'),
      integrated: false,
      devices: ['gpu-cuda', 'gpu-vulkan'],
    });
  });

  it('finds the NPU through /dev/accel and names the amdxdna driver', async () => {
    const h = workstation();
    const probe = await probeHardware(options(h));
    expect(probe.npus).toEqual([{
      name: 'accel0',
      path: join(h.dev, 'accel/accel0'),
      driver: 'amdxdna',
      kind: 'AMD XDNA',
      pci_slot: '0000:c6:00.1',
      devices: ['npu'],
    }]);
  });

  it('reads CPU cores, threads and SIMD flags from cpuinfo, and RAM from meminfo', async () => {
    const probe = await probeHardware(options(fakeHost()));
    expect(probe.cpu).toMatchObject({
      model: 'AMD Ryzen AI Max+ 395 w/ Radeon 8060S',
      cores: 2,
      threads: 4,
      flags: ['sse4_2', 'avx', 'avx2', 'fma', 'f16c', 'avx512f', 'avx512bw', 'avx512_vnni'],
    });
    expect(probe.memory).toEqual({ total_mb: 64_000, available_mb: 32_000 });
  });

  it('carries the schema, version and time, and round-trips through the type guard', async () => {
    const before = Date.now();
    const probe = await probeHardware(options(workstation()));
    expect(probe.schema).toBe(HARDWARE_SCHEMA);
    expect(probe.svc_version).toBe(VERSION);
    expect(Date.parse(probe.probed_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(probe.probed_at).toBe(new Date(probe.probed_at).toISOString());
    expect(isHardwareProbe(JSON.parse(JSON.stringify(probe)))).toBe(true);
  });

  it('recommends rocm for an AMD GPU when /dev/kfd exists', async () => {
    const h = workstation();
    h.file('dev/kfd', '');
    const probe = await probeHardware(options(h));
    expect(probe.kfd).toBe(true);
    expect(probe.recommended).toBe('rocm');
    expect(probe.recommended_reason).toMatch(/AMD GPU card0 .*\/dev\/kfd/);
    expect(defaultHardware(probe)).toBe('rocm');
  });

  it('recommends rocm for an AMD GPU when rocm-smi is on PATH', async () => {
    const which = (tool: string) => (tool === 'rocm-smi' ? '/opt/rocm/bin/rocm-smi' : null);
    const probe = await probeHardware(options(workstation(), { which }));
    expect(probe.kfd).toBe(false);
    expect(probe.tools['rocm-smi']).toEqual({ present: true, path: '/opt/rocm/bin/rocm-smi' });
    expect(probe.tools.vulkaninfo).toEqual({ present: false, path: null });
    expect(probe.recommended).toBe('rocm');
  });

  it('recommends vulkan for GPUs without ROCm, and cpu with none', async () => {
    const noRocm = await probeHardware(options(workstation()));
    expect(noRocm.recommended).toBe('vulkan');
    expect(noRocm.recommended_reason).toBe('AMD GPU card0 without ROCm (no rocm-smi, no /dev/kfd)');

    const nvidiaOnly = fakeHost();
    addCard(nvidiaOnly, NVIDIA_PCI, 'card0', 'renderD128', { vendor: '0x10de', device: '0x2684' }, 'nvidia');
    nvidiaOnly.file('dev/kfd', ''); // no AMD GPU: kfd alone does not make it rocm
    const nv = await probeHardware(options(nvidiaOnly));
    expect(nv.recommended).toBe('vulkan');
    expect(nv.recommended_reason).toContain('NVIDIA GPU card0');

    const bare = await probeHardware(options(fakeHost()));
    expect(bare).toMatchObject({ gpus: [], npus: [], kfd: false, recommended: 'cpu' });
  });

  it('ignores firmware framebuffers and lists unknown vendors without a backend', async () => {
    const h = fakeHost();
    addCard(h, 'devices/platform/simple-framebuffer.0', 'card0', null, {}, 'simple-framebuffer');
    addCard(h, 'devices/pci0000:00/0000:00:02.0', 'card1', 'renderD128', { vendor: '0x1234', device: '0x1111' }, 'bochs-drm');
    const probe = await probeHardware(options(h));
    expect(probe.gpus).toHaveLength(1);
    expect(probe.gpus[0]).toMatchObject({ card: 'card1', vendor: 'other', vendor_name: '0x1234', driver: 'bochs-drm', devices: [], integrated: null });
    expect(probe.recommended).toBe('cpu');
  });

  it('marks the Intel iGPU at 00:02.0 integrated and suited to vulkan only', async () => {
    const h = fakeHost();
    addCard(h, 'devices/pci0000:00/0000:00:02.0', 'card0', 'renderD128', { vendor: '0x8086', device: '0x7d55' }, 'xe');
    const probe = await probeHardware(options(h));
    expect(probe.gpus[0]).toMatchObject({ vendor: 'intel', driver: 'xe', integrated: true, devices: ['gpu-vulkan'], pci_slot: '0000:00:02.0' });
    expect(probe.recommended).toBe('vulkan');
  });

  it('asks nvidia-smi for NVIDIA VRAM with a bounded timeout, matching cards by PCI address', async () => {
    const calls: Array<{ path: string; args: string[]; timeoutMs: number }> = [];
    const which = (tool: string) => (tool === 'nvidia-smi' ? '/usr/bin/nvidia-smi' : null);
    const runTool = async (path: string, args: string[], timeoutMs: number) => {
      calls.push({ path, args, timeoutMs });
      return '00000000:01:00.0, 24564\n00000000:02:00.0, 8192\n';
    };
    const probe = await probeHardware(options(workstation(), { which, runTool }));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ path: '/usr/bin/nvidia-smi', timeoutMs: TOOL_TIMEOUT_MS });
    expect(probe.gpus[1]).toMatchObject({ vendor: 'nvidia', vram_mb: 24564, vram_source: 'nvidia-smi' });
    expect(probe.gpus[0]).toMatchObject({ vendor: 'amd', vram_mb: 512, vram_source: 'sysfs' });
  });

  it('runs a tool for its output, and kills one that outlives its time, reading that as no answer', async () => {
    const dir = tempDir();
    const tool = join(dir, 'wedged-smi');
    // Says something, then hangs (a wedged driver): the words must not count as an answer. It
    // would exit after 10 s, so a runner that never kills fails on that late answer, not on a hang.
    writeFileSync(tool, '#!/bin/sh\necho "00000000:01:00.0, 24564"\nexec sleep 10\n');
    chmodSync(tool, 0o755);
    expect(await runWithTimeout('/bin/echo', ['00000000:01:00.0, 24564'], TOOL_TIMEOUT_MS)).toBe('00000000:01:00.0, 24564\n');
    expect(await runWithTimeout(tool, [], 200)).toBeNull();
  });

  it('leaves NVIDIA VRAM unknown when nvidia-smi fails or times out, and runs nothing without NVIDIA', async () => {
    const which = (tool: string) => (tool === 'nvidia-smi' ? '/usr/bin/nvidia-smi' : null);
    let runs = 0;
    const failing = async () => {
      runs++;
      return null;
    };
    const probe = await probeHardware(options(workstation(), { which, runTool: failing }));
    expect(probe.gpus[1]).toMatchObject({ vram_mb: null, vram_source: null });
    expect(runs).toBe(1);

    await probeHardware(options(fakeHost(), { which, runTool: failing }));
    expect(runs).toBe(1);
  });

  it('reports nothing, without failing, when /sys, /dev and /proc are empty', async () => {
    const empty = tempDir();
    const probe = await probeHardware({ sysRoot: join(empty, 'sys'), devRoot: join(empty, 'dev'), procRoot: join(empty, 'proc'), which: noTools });
    expect(probe).toMatchObject({ gpus: [], npus: [], kfd: false, recommended: 'cpu' });
    // Falls back to what Node's os module says.
    expect(probe.cpu.threads).toBeGreaterThan(0);
    expect(probe.cpu.cores).toBeGreaterThan(0);
    expect(probe.memory.total_mb).toBeGreaterThan(0);
  });
});

describe('probeHardware on this machine', () => {
  it('completes and reports CPU and memory; no DRM means no GPU', async () => {
    const probe = await probeHardware();
    expect(probe.cpu.cores).toBeGreaterThan(0);
    expect(probe.cpu.threads).toBeGreaterThanOrEqual(probe.cpu.cores);
    expect(probe.memory.total_mb).toBeGreaterThan(0);
    expect(Object.keys(probe.tools).sort()).toEqual(['docker', 'nvidia-smi', 'podman', 'rocm-smi', 'vulkaninfo']);
    if (!existsSync('/sys/class/drm')) {
      expect(probe.gpus).toEqual([]);
      expect(probe.recommended).toBe('cpu');
    }
  }, 20_000);
});

describe('defaultHardware', () => {
  it('falls back to vulkan with no probe, and follows the probe otherwise', () => {
    expect(defaultHardware(null)).toBe('vulkan');
    expect(defaultHardware({ recommended: 'cpu' } as HardwareProbe)).toBe('cpu');
    expect(defaultHardware({ recommended: 'tpu' } as unknown as HardwareProbe)).toBe('vulkan');
  });
});

describe('hardware.json', () => {
  it('is written atomically and read back; missing, garbage or another schema read as null', async () => {
    const configRoot = join(tempDir(), 'etc/svc');
    const paths = { configRoot };
    expect(await readHardwareJson(paths)).toBeNull();

    const probe = await probeHardware(options(workstation()));
    const written = await writeHardwareJson(paths, probe);
    expect(written).toBe(join(configRoot, 'hardware.json'));
    expect(hardwareJsonPath(paths)).toBe(written);
    expect(JSON.parse(readFileSync(written, 'utf8'))).toEqual(probe);
    expect(await readHardwareJson(paths)).toEqual(probe);

    writeFileSync(written, '{ not json');
    expect(await readHardwareJson(paths)).toBeNull();
    writeFileSync(written, JSON.stringify({ ...probe, schema: 99 }));
    expect(await readHardwareJson(paths)).toBeNull();
  });

  it('fails with config.write_failed when the config root cannot be written', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'not-a-dir'), '');
    const probe = await probeHardware(options(fakeHost()));
    const failure = await writeHardwareJson({ configRoot: join(dir, 'not-a-dir') }, probe).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).code).toBe('config.write_failed');
  });
});

describe('helpers', () => {
  it('whichOnPath finds executables only, and runs nothing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'vulkaninfo'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, 'vulkaninfo'), 0o755);
    writeFileSync(join(dir, 'rocm-smi'), 'not executable');
    chmodSync(join(dir, 'rocm-smi'), 0o644);
    const path = `relative/dir:${dir}`;
    expect(await whichOnPath('vulkaninfo', path)).toBe(join(dir, 'vulkaninfo'));
    expect(await whichOnPath('rocm-smi', path)).toBeNull();
    expect(await whichOnPath('nvidia-smi', path)).toBeNull();
  });

  it('normalisePciSlot reconciles nvidia-smi and sysfs addresses', () => {
    expect(normalisePciSlot('00000000:01:00.0')).toBe('0000:01:00.0');
    expect(normalisePciSlot('0000:C5:00.0')).toBe('0000:c5:00.0');
    expect(normalisePciSlot('GPU-1234')).toBeNull();
  });

  it('parseCpuinfo splits processors into records', () => {
    const records = parseCpuinfo(CPUINFO);
    expect(records).toHaveLength(4);
    expect(records[3]).toMatchObject({ processor: '3', 'core id': '1' });
  });
});
