// Container mode (docs/configuration.md, engines): an engine run inside its profile's image by
// podman or docker. Shared by every adapter: llama-server (the image's entrypoint is the
// engine, the argv follows the image) and the other engines (an entrypoint override, extra
// mounts, the host network for ComfyUI). Pure apart from probeHostDevices(), which the
// tests replace.
//   <rt> run --rm --name=svc-slot-<name> [--replace] --log-driver=none [--network=host]
//     [--ipc=host] --device=... --group-add=... --security-opt=... [--ulimit=...]
//     --volume=<store>:<store>:ro,z [--volume=...] --env=K=V ...
//     [--publish=<publish_host>:P:P] [--entrypoint=X] <image> <argv>
// On the host network nothing is published: the engine's own --host decides where it
// listens, and svc passes 127.0.0.1 there.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import type { Device } from '../config/schema/common.js';

/** What the host offers to pass into a container; injectable for tests. */
export interface HostDevices {
  /** /dev/kfd exists (ROCm compute). */
  kfd: boolean;
  /** Character devices directly under /dev/dri, full paths, sorted. */
  dri: string[];
  /** Numeric ids of the render and video groups. */
  gids: { render: number; video: number };
}

/** Fallback group ids when /etc/group has no render or video. */
export const FALLBACK_GIDS = { render: 993, video: 44 } as const;

function groupId(groupFile: string, name: string): number | undefined {
  for (const line of groupFile.split('\n')) {
    const [group, , gid] = line.split(':');
    if (group === name && gid && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/** Read the device nodes and group ids of this host. */
export function probeHostDevices(root = '/'): HostDevices {
  const at = (...parts: string[]) => join(root, ...parts);
  let kfd = false;
  try {
    kfd = statSync(at('dev/kfd')).isCharacterDevice();
  } catch { /* absent */ }
  let dri: string[] = [];
  try {
    dri = readdirSync(at('dev/dri'))
      .filter((name) => { try { return statSync(at('dev/dri', name)).isCharacterDevice(); } catch { return false; } })
      .sort()
      .map((name) => `/dev/dri/${name}`);
  } catch { /* absent */ }
  let groups = '';
  try {
    groups = readFileSync(at('etc/group'), 'utf8');
  } catch { /* absent */ }
  return { kfd, dri, gids: { render: groupId(groups, 'render') ?? FALLBACK_GIDS.render, video: groupId(groups, 'video') ?? FALLBACK_GIDS.video } };
}

export const SECURITY_OPTS = ['apparmor=unconfined', 'seccomp=unconfined'];

interface DeviceAccess {
  devices: string[];
  groups: number[];
  securityOpts: string[];
  ulimits: string[];
}

/** Device nodes, groups and options that give a container its slot's device. */
export function deviceAccess(device: Device, gpuIndex: number | null, host: HostDevices): DeviceAccess {
  const none: DeviceAccess = { devices: [], groups: [], securityOpts: [], ulimits: [] };
  switch (device) {
    case 'gpu-rocm': {
      const devices = [...(host.kfd ? ['/dev/kfd'] : []), ...host.dri];
      return { ...none, devices: devices.length > 0 ? devices : ['/dev/kfd', '/dev/dri'], groups: [host.gids.render, host.gids.video], securityOpts: SECURITY_OPTS };
    }
    case 'gpu-vulkan':
      return { ...none, devices: host.dri.length > 0 ? host.dri : ['/dev/dri'], groups: [host.gids.render, host.gids.video], securityOpts: SECURITY_OPTS };
    case 'gpu-cuda':
      // CDI: the NVIDIA container toolkit maps the GPU(s), libraries and groups itself.
      return { ...none, devices: [`nvidia.com/gpu=${gpuIndex ?? 'all'}`] };
    case 'npu':
      return { devices: ['/dev/accel/accel0', '/dev/dri/renderD128'], groups: [host.gids.render], securityOpts: SECURITY_OPTS, ulimits: ['memlock=-1'] };
    case 'cpu':
      return none;
  }
}

const within = (dir: string, path: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** Read-only mounts: the model store, plus the folder of any file the argv names outside it. */
export function containerMounts(store: string, files: readonly string[]): string[] {
  const dirs = new Set<string>();
  if (store) dirs.add(store);
  for (const file of files) {
    if (store && within(store, file)) continue;
    const dir = dirname(file);
    if (![...dirs].some((d) => within(d, dir))) dirs.add(dir);
  }
  return [...dirs].map((dir) => `--volume=${dir}:${dir}:ro,z`);
}

/** `host:port` as a publish or URL address: IPv6 literals in brackets. */
export const hostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** A mount beyond the read-only model store, e.g. ComfyUI's output folder (read-write). */
export interface Volume {
  source: string;
  target: string;
  mode: 'ro' | 'rw';
}

export interface ContainerInput {
  runtime: 'podman' | 'docker';
  slotName: string;
  image: string;
  device: Device;
  gpuIndex: number | null;
  publishHost: string;
  port: number;
  modelStore: string;
  /** Files the argv names (model, mmproj, chat template): mounted read-only when outside the store. */
  files: readonly string[];
  /** Further mounts, after the store. */
  volumes?: readonly Volume[];
  /** The engine's environment inside the container (GPU visibility, [server].env). */
  env: Record<string, string>;
  /** What follows the image: the engine's argv (built with --host 0.0.0.0 unless on the host network). */
  argv: readonly string[];
  /** Replaces the image's entrypoint (its arguments go in argv). */
  entrypoint?: string;
  /** The host's network (no publish) and IPC namespace, for engines that need them (ComfyUI). */
  network?: 'host';
  ipc?: 'host';
  /** Security options on top of the device's. */
  securityOpts?: readonly string[];
  host: HostDevices;
}

const mountMode = (mode: Volume['mode']) => (mode === 'ro' ? 'ro,z' : 'z');

/** The runtime's arguments (everything after the runtime binary). */
export function containerArgs(input: ContainerInput): string[] {
  const access = deviceAccess(input.device, input.gpuIndex, input.host);
  const securityOpts = [...new Set([...access.securityOpts, ...(input.securityOpts ?? [])])];
  return [
    'run', '--rm', `--name=svc-slot-${input.slotName}`,
    ...(input.runtime === 'podman' ? ['--replace'] : []),
    '--log-driver=none',
    ...(input.network ? [`--network=${input.network}`] : []),
    ...(input.ipc ? [`--ipc=${input.ipc}`] : []),
    ...access.devices.map((d) => `--device=${d}`),
    ...access.groups.map((g) => `--group-add=${g}`),
    ...securityOpts.map((o) => `--security-opt=${o}`),
    ...access.ulimits.map((u) => `--ulimit=${u}`),
    ...containerMounts(input.modelStore, input.files),
    ...(input.volumes ?? []).map((v) => `--volume=${v.source}:${v.target}:${mountMode(v.mode)}`),
    ...Object.entries(input.env).map(([k, v]) => `--env=${k}=${v}`),
    ...(input.network === 'host' ? [] : [`--publish=${hostPort(input.publishHost, input.port)}:${input.port}`]),
    ...(input.entrypoint ? [`--entrypoint=${input.entrypoint}`] : []),
    input.image,
    ...input.argv,
  ];
}
