// The built-in engine's command line: a subset of llama-server's flags with llama-server's
// meanings, so one argv builder serves both engines (src/engines/llama-server/argv.ts).
// Anything else is refused by name: a flag meant for llama-server that this engine would
// silently ignore is a slot that does not do what its file says.
import { availableParallelism } from 'node:os';

export const POOLING_TYPES = ['none', 'mean', 'cls', 'last', 'rank'] as const;
export type PoolingType = (typeof POOLING_TYPES)[number];

/** `-ngl`: a layer count, or llama-server's `auto` / `all`. */
export type GpuLayers = number | 'auto' | 'all';

export interface BuiltinFlags {
  model: string;
  host: string;
  port: number;
  /** Total context (llama-server's -c), split evenly across --parallel sequences; 0 = the model's own. */
  ctxSize: number;
  threads: number;
  gpuLayers: GpuLayers;
  /** Served model name; llama-server takes a comma-separated list and reports the first. */
  alias: string | null;
  embedding: boolean;
  reranking: boolean;
  pooling: PoolingType | null;
  parallel: number;
  /** A template name (chatml, llama3, ...) or an inline Jinja template. */
  chatTemplate: string | null;
  chatTemplateFile: string | null;
  /** `--device`: `none` = no GPU, `auto`, or a backend device like CUDA0 / Vulkan0. */
  device: string;
}

export class FlagError extends Error {}

/**
 * The default thread count: half the available cores, at least 1. llama.cpp's threads spin
 * while they wait for each other, so using every core starves everything else on the host,
 * the engine's own HTTP thread included; measured on a 2-core box: 32 tokens of the tiny
 * model took 7.6 s with node-llama-cpp's default and 16 ms with 1 thread.
 */
export function defaultThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}

type Setter = (flags: BuiltinFlags, value: string, name: string) => void;
interface FlagDef {
  names: readonly string[];
  /** Boolean flags take no value. */
  set: Setter | ((flags: BuiltinFlags) => void);
  takesValue: boolean;
}

function integer(value: string, name: string, min: number): number {
  if (!/^-?\d+$/.test(value) || Number(value) < min) throw new FlagError(`${name} expects an integer >= ${min}; got "${value}"`);
  return Number(value);
}

function choice<T extends string>(value: string, name: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) throw new FlagError(`${name} expects one of ${choices.join(', ')}; got "${value}"`);
  return value as T;
}

const valued = (names: readonly string[], set: Setter): FlagDef => ({ names, set, takesValue: true });
const boolean = (names: readonly string[], set: (flags: BuiltinFlags) => void): FlagDef => ({ names, set, takesValue: false });

const FLAGS: readonly FlagDef[] = [
  valued(['-m', '--model'], (f, v) => (f.model = v)),
  valued(['--host'], (f, v) => (f.host = v)),
  valued(['--port'], (f, v, n) => (f.port = integer(v, n, 0))),
  valued(['-c', '--ctx-size'], (f, v, n) => (f.ctxSize = integer(v, n, 0))),
  // llama-server: -1 = automatic.
  valued(['-t', '--threads'], (f, v, n) => (f.threads = integer(v, n, -1) <= 0 ? defaultThreads() : Number(v))),
  valued(['-ngl', '--n-gpu-layers', '--gpu-layers'], (f, v, n) => (f.gpuLayers = v === 'auto' || v === 'all' ? v : integer(v, n, -1) < 0 ? 'all' : Number(v))),
  valued(['-a', '--alias'], (f, v) => (f.alias = v.split(',')[0]!.trim() || null)),
  boolean(['--embedding', '--embeddings'], (f) => (f.embedding = true)),
  boolean(['--reranking', '--rerank'], (f) => (f.reranking = true)),
  valued(['--pooling'], (f, v, n) => (f.pooling = choice(v, n, POOLING_TYPES))),
  // llama-server: -1 = automatic; one sequence is the safe automatic choice for one user.
  valued(['-np', '--parallel'], (f, v, n) => (f.parallel = integer(v, n, -1) <= 0 ? 1 : Number(v))),
  valued(['--chat-template'], (f, v) => (f.chatTemplate = v)),
  valued(['--chat-template-file'], (f, v) => (f.chatTemplateFile = v)),
  valued(['-dev', '--device'], (f, v) => (f.device = v)),
];

const BY_NAME = new Map(FLAGS.flatMap((def) => def.names.map((name) => [name, def] as const)));

/** Every flag name accepted, for error messages and --help. */
export const ACCEPTED_FLAGS: readonly string[] = FLAGS.map((def) => def.names.join('/'));

export const USAGE = `usage: svc-builtin -m <model.gguf> [flags]\nflags (llama-server's meanings): ${ACCEPTED_FLAGS.join(', ')}`;

/** Parse argv (without node and the script). Throws FlagError naming the bad flag. */
export function parseFlags(argv: readonly string[]): BuiltinFlags {
  const flags: BuiltinFlags = {
    model: '', host: '127.0.0.1', port: 8080, ctxSize: 0, threads: defaultThreads(), gpuLayers: 'auto', alias: null,
    embedding: false, reranking: false, pooling: null, parallel: 1, chatTemplate: null, chatTemplateFile: null, device: 'auto',
  };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const name = eq > 0 ? token.slice(0, eq) : token;
    const def = BY_NAME.get(name);
    if (!def) {
      const what = name.startsWith('-') ? `unknown flag "${name}"` : `unexpected argument "${token}"`;
      throw new FlagError(`${what}: the built-in engine accepts ${ACCEPTED_FLAGS.join(', ')}`);
    }
    if (!def.takesValue) {
      if (eq > 0) throw new FlagError(`${name} takes no value; got "${token}"`);
      (def.set as (f: BuiltinFlags) => void)(flags);
      continue;
    }
    const value = eq > 0 ? token.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new FlagError(`${name} expects a value`);
    (def.set as Setter)(flags, value, name);
  }
  return checked(flags);
}

function checked(flags: BuiltinFlags): BuiltinFlags {
  if (!flags.model) throw new FlagError('-m/--model is required: the path of a GGUF model file');
  if (flags.port > 65535) throw new FlagError(`--port expects a port number (0-65535); got ${flags.port}`);
  if (flags.embedding && flags.reranking) {
    // One context pools one way; llama-server's --reranking implies --embedding with rank pooling.
    if (flags.pooling !== null && flags.pooling !== 'rank') throw new FlagError(`--reranking needs --pooling rank; got --pooling ${flags.pooling}`);
  }
  if (flags.chatTemplate !== null && flags.chatTemplateFile !== null) throw new FlagError('give --chat-template or --chat-template-file, not both');
  return flags;
}
