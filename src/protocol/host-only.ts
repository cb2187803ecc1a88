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
 * Engine flags that read or write host files, or load code (llama-server's and the other
 * engines'): in a slot's extra_args or a profile's flags they would turn an HTTP edit into
 * a file write or a code load. Both `--flag value` and `--flag=value` forms count.
 */
export const HOST_ONLY_FLAGS: readonly string[] = [
  '--log-file', '--slot-save-path', '--path', '--lora', '--lora-scaled', '--control-vector', '--control-vector-scaled',
  '--mmproj', '--model', '-m', '--model-draft', '-md', '--chat-template-file', '--grammar-file', '--json-schema-file',
  '--ssl-key-file', '--ssl-cert-file', '--api-key-file', '--prompt-cache', '--lookup-cache-static', '-lcs',
  '--lookup-cache-dynamic', '-lcd', '--rpc', '--override-tensor-file', '--hf-file', '--hf-repo', '-hf', '-hfr', '--model-url', '-mu',
  '--vocab-only', '--output-file', '-o', '--logdir', '--yaml-dump', '--media-path', '--models-dir', '--models-preset',
];

/** The host-only flags among engine arguments (in the order given, once each). */
export function hostOnlyFlags(args: readonly string[]): string[] {
  const found = new Set<string>();
  for (const arg of args) {
    const flag = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (HOST_ONLY_FLAGS.includes(flag)) found.add(flag);
  }
  return [...found];
}

/** The host-only settings whose value differs between two versions of svc.toml. */
export function changedHostOnlySettings(before: unknown, after: unknown): string[] {
  return Object.keys(HOST_ONLY_SETTINGS).filter((key) => JSON.stringify(valueAt(before, key)) !== JSON.stringify(valueAt(after, key)));
}

function valueAt(root: unknown, key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), root);
}
