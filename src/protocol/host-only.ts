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

/**
 * Environment variables of an engine ([server].env of a slot) that change how a program
 * loads or where it reads code from. Any other variable stays settable.
 */
const LOADER_ENV = [
  /^LD_/, /^DYLD_/, /^MALLOC_/, /^GCONV_PATH$/, /^LOCPATH$/, /^HOSTALIASES$/, /^RESOLV_HOST_CONF$/,
  /^PATH$/, /^IFS$/, /^SHELL$/, /^BASH_ENV$/, /^ENV$/, /^BASH_FUNC_/,
  /^NODE_OPTIONS$/, /^NODE_PATH$/, /^PYTHONPATH$/, /^PYTHONHOME$/, /^PYTHONSTARTUP$/, /^PYTHONUSERBASE$/,
  /^PERL5LIB$/, /^PERL5OPT$/, /^PERLLIB$/, /^RUBYOPT$/, /^RUBYLIB$/, /^LUA_C?PATH/, /^JAVA_TOOL_OPTIONS$/, /^_JAVA_OPTIONS$/,
  /^GGML_BACKEND_PATH$/, /^OPENSSL_CONF$/, /^OPENSSL_MODULES$/, /^SSL_CERT_(FILE|DIR)$/,
];

export function isLoaderEnv(name: string): boolean {
  return LOADER_ENV.some((pattern) => pattern.test(name));
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

/** The loader variables among an engine environment's names. */
export function loaderEnvIn(env: Readonly<Record<string, string>> | null | undefined): string[] {
  return Object.keys(env ?? {}).filter(isLoaderEnv);
}

/** The host-only settings whose value differs between two versions of svc.toml. */
export function changedHostOnlySettings(before: unknown, after: unknown): string[] {
  return Object.keys(HOST_ONLY_SETTINGS).filter((key) => JSON.stringify(valueAt(before, key)) !== JSON.stringify(valueAt(after, key)));
}

function valueAt(root: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), root);
}
