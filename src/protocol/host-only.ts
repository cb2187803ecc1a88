// Host-only keys (docs/auth.md, "Host-only keys"): settings that name a program, name a host
// path svc reads, writes or executes, change how a program loads, or expose engines beyond
// this host. Over HTTP only a loopback client (default mode) or an admin may change them;
// everyone else gets 403 config.host_only and the file is untouched. Editing the TOML on
// the host and `svc config edit` still set them. This list sits beside the route table
// (access.ts) so that both halves of "who may do what" are read in one place.

/** svc.toml keys, dotted. A test fails for an [engines] key missing here. */
export const HOST_ONLY_SETTINGS: Readonly<Record<string, string>> = {
  'engines.llama_server': 'names the llama-server program svc runs',
  'engines.flm': 'a command line svc runs',
  'engines.moonshine': 'a command line svc runs',
  'engines.kokoro': 'a command line svc runs',
  'engines.qwen3tts': 'a command line svc runs',
  'engines.comfyui': 'a command line svc runs',
  'engines.runtime': 'runs engines in containers (podman or docker) instead of as processes',
  'models.store': 'a host directory svc reads models from and writes pulls into',
  'models.roots': 'host directories svc scans and reads',
  'models.pull_allowed_hosts': 'hosts svc fetches from: another one could point a pull at a service on the host\'s network',
  'slots.publish_host': 'exposes every engine port on the network, around the API and its auth',
  'api.max_body_mb': 'how much memory one request may make the gateway hold',
  'api.public_hostnames': 'names a web page may reach the API by: a name of an attacker\'s would let a page rebind it',
  'mcp.registry_url': 'a host svc fetches the tool server catalog from',
  'mcp.allowed_hosts': 'hosts a LAN client may point a tool server at: another one could point svc at a service on the host\'s network',
  'memory.pgvector_url': 'a database server svc connects to and sends memory to',
  'memory.hindsight_url': 'a memory daemon svc connects to and sends memory to',
  'memory.mem0_url': 'a memory server svc connects to and sends memory to',
  'api.allowed_origins': 'web pages that may drive the API, with this host\'s powers when opened in a browser on this host',
};

/** POST /api/models: the file a new registry entry points at. */
export const HOST_ONLY_MODEL_PATH = 'path';

/** A GPU list as the runtimes read it: indexes, or GPU ids ("GPU-<hex>", "MIG-<hex>"), comma-separated; "" hides every GPU. */
const GPU_LIST = /^(?:(?:\d{1,3}|(?:GPU|MIG)-[0-9A-Fa-f-]{8,64})(?:,(?:\d{1,3}|(?:GPU|MIG)-[0-9A-Fa-f-]{8,64}))*)?$/;
/** Vulkan devices are indexes only. */
const INDEX_LIST = /^(?:\d{1,3}(?:,\d{1,3})*)?$/;
/** A thread count: 1-9999. */
const COUNT = /^[1-9]\d{0,3}$/;

export interface LanEnvRule {
  /** The whole value a LAN client may give the name. */
  readonly value: RegExp;
  /** That grammar in words (the dashboard says it as you type). */
  readonly rule: string;
}

/**
 * The [server].env names a client without host authority may set (docs/auth.md, "Engine
 * input"), each only with a plain device list or number. Every other name is host-only:
 * an engine's environment is another way to give it flags (llama-server reads every flag
 * from LLAMA_ARG_*, so LLAMA_ARG_LOG_FILE writes a file and LLAMA_ARG_RPC sends the model to
 * a host), to load code (LD_PRELOAD, NODE_OPTIONS, PYTHONWARNINGS naming a module), or to run
 * a program (BROWSER). So this is an allowlist: a name a runtime adds later is the host's too.
 */
export const LAN_ENV: Readonly<Record<string, LanEnvRule>> = {
  // Which GPUs the CUDA runtime shows the engine (it renumbers them from 0); nothing else.
  CUDA_VISIBLE_DEVICES: { value: GPU_LIST, rule: 'GPU indexes or GPU-/MIG- ids, comma-separated' },
  // The order CUDA numbers GPUs in, so that the indexes above mean what nvidia-smi shows.
  CUDA_DEVICE_ORDER: { value: /^(?:FASTEST_FIRST|PCI_BUS_ID)$/, rule: 'FASTEST_FIRST or PCI_BUS_ID' },
  // Which GPUs HIP (ROCm's runtime) and, beneath it, ROCr show the engine; the same as [slot].gpu_index sets.
  HIP_VISIBLE_DEVICES: { value: GPU_LIST, rule: 'GPU indexes or GPU- ids, comma-separated' },
  ROCR_VISIBLE_DEVICES: { value: GPU_LIST, rule: 'GPU indexes or GPU- ids, comma-separated' },
  // Which Vulkan devices llama.cpp's Vulkan backend uses, by index.
  GGML_VK_VISIBLE_DEVICES: { value: INDEX_LIST, rule: 'device indexes, comma-separated' },
  // The GPU architecture ROCm assumes (10.3.0 runs a gfx1031 card with gfx1030 kernels); it picks among kernels installed on the host, it loads nothing new.
  HSA_OVERRIDE_GFX_VERSION: { value: /^\d{1,2}\.\d{1,2}\.\d{1,2}$/, rule: 'a version such as 10.3.0' },
  // Thread counts of the CPU math libraries (OpenMP in llama.cpp and PyTorch, OpenBLAS, MKL): as -t, only how many.
  OMP_NUM_THREADS: { value: COUNT, rule: 'a number of threads, 1-9999' },
  OPENBLAS_NUM_THREADS: { value: COUNT, rule: 'a number of threads, 1-9999' },
  MKL_NUM_THREADS: { value: COUNT, rule: 'a number of threads, 1-9999' },
};

/** Whether a client without host authority may give an engine `name=value`. */
export function lanSettableEnv(name: string, value: string): boolean {
  const rule = Object.hasOwn(LAN_ENV, name) ? LAN_ENV[name] : undefined;
  return rule !== undefined && rule.value.test(value);
}

/**
 * The names of an engine environment `after` that need host authority, compared as flags are:
 * a name outside the allowlist or a value outside its grammar, unless `kept` (what the host
 * set before) has the same name with the same value. Removing a name never needs it.
 */
export function hostOnlyEnvIn(after: Readonly<Record<string, string>> | null | undefined, kept?: Readonly<Record<string, string>> | null): string[] {
  return Object.entries(after ?? {})
    .filter(([name, value]) => !lanSettableEnv(name, value) && !(kept && Object.hasOwn(kept, name) && kept[name] === value))
    .map(([name]) => name);
}

/**
 * Flags that say where an engine listens. svc sets them itself on every engine it starts
 * (the slot's port, on 127.0.0.1 or [slots].publish_host), so they are refused in profile
 * flags, [server].extra_args and stack rows, from anywhere, the host included: a profile's
 * `--listen 0.0.0.0` would otherwise expose an engine around the API. Matched the way the
 * engines read them: llama.cpp turns `_` into `-` in long flags, Python's argparse takes
 * any unique prefix (`--list` is `--listen`), and `--flag=value` is one token.
 */
export const OWNED_FLAGS: readonly string[] = ['--host', '--port', '--listen', '--reuse-port'];
/** The shortest prefix argparse could expand to an owned flag that is checked ("--po"). */
const MIN_PREFIX = 4;

/** The owned flags among engine arguments, as spelled (once each). */
export function ownedFlagsIn(args: readonly string[]): string[] {
  const found = new Set<string>();
  for (const arg of args) {
    if (!arg.startsWith('--')) continue;
    const name = (arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg).replace(/_/g, '-').toLowerCase();
    if (OWNED_FLAGS.some((owned) => owned === name || (name.length >= MIN_PREFIX && owned.startsWith(name)))) found.add(arg.split('=')[0]!);
  }
  return [...found];
}

export function ownedFlagsMessage(flags: readonly string[]): string {
  return `${flags.join(', ')}: where an engine listens is svc's own (the slot's port, on 127.0.0.1 or [slots].publish_host); remove ${flags.length > 1 ? 'them' : 'it'}`;
}

/** The host-only settings whose value differs between two versions of svc.toml. */
export function changedHostOnlySettings(before: unknown, after: unknown): string[] {
  return Object.keys(HOST_ONLY_SETTINGS).filter((key) => JSON.stringify(valueAt(before, key)) !== JSON.stringify(valueAt(after, key)));
}

function valueAt(root: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), root);
}
