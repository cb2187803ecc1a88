// Loading a model with node-llama-cpp for one of three jobs, as llama-server's flags say:
// chat and completions (one context, --parallel sequences), embeddings (--embedding) or
// reranking (--reranking), each with --parallel workers. GPU builds of node-llama-cpp are
// used when installed (gpu: 'auto'); `--device none` (a cpu slot) keeps to the CPU build.
import { readFileSync } from 'node:fs';
import {
  getLlama, LlamaLogLevel, NoBinaryFoundError, resolveChatWrapper,
  type ChatWrapper, type Llama, type LlamaContextSequence, type LlamaEmbeddingContext, type LlamaModel, type LlamaRankingContext,
} from 'node-llama-cpp';
import { readGgufHeader } from '../gguf/reader.js';
import { templateChoice } from './chat-template.js';
import { POOLING_TYPES, type BuiltinFlags } from './flags.js';
import { WorkerPool } from './pool.js';

export type EngineMode = 'chat' | 'embedding' | 'reranking';

export interface LoadedEngine {
  mode: EngineMode;
  llama: Llama;
  model: LlamaModel;
  /** The name answers carry when a request names none: --alias, else the file name. */
  modelName: string;
  /** Tokens one request may use (the context of one sequence or worker). */
  contextSize: number;
  parallel: number;
  /** Chat mode only. */
  sequences: WorkerPool<LlamaContextSequence> | null;
  chatWrapper: ChatWrapper | null;
  embedders: WorkerPool<LlamaEmbeddingContext> | null;
  rankers: WorkerPool<LlamaRankingContext> | null;
  /** 'cpu', or the GPU backend in use (cuda, vulkan, metal), with its devices: for the log line. */
  backend: string;
  /** The same, machine-readable: GET /v1/models meta.runtime, read by the slot supervisor. */
  runtime: BuiltinRuntime;
  /**
   * Where load time went: node-llama-cpp's binding (on Linux it test-loads a prebuilt binary
   * in a child process first), the model, the contexts, and choosing the chat wrapper (it
   * compares the model's Jinja template with every wrapper it knows).
   */
  timings: { backendMs: number; modelMs: number; contextMs: number; templateMs: number };
  dispose(): Promise<void>;
}

export interface BuiltinRuntime {
  backend: 'cpu' | 'cuda' | 'vulkan' | 'metal';
  gpu_layers: { offloaded: number; total: number };
}

/**
 * What computes the layers: a GPU build that found no device, or that offloads no layer,
 * computes on the CPU (node-llama-cpp still reports the layers it was asked to offload).
 */
export function builtinRuntime(gpu: Llama['gpu'], devices: readonly string[], requestedLayers: number, totalLayers: number): BuiltinRuntime {
  const onGpu = gpu !== false && devices.length > 0 && requestedLayers > 0;
  return { backend: onGpu ? gpu : 'cpu', gpu_layers: { offloaded: onGpu ? Math.min(requestedLayers, totalLayers) : 0, total: totalLayers } };
}

export function engineMode(flags: Pick<BuiltinFlags, 'embedding' | 'reranking'>): EngineMode {
  return flags.reranking ? 'reranking' : flags.embedding ? 'embedding' : 'chat';
}

/** `--device`: none = CPU only; a backend device (CUDA0, Vulkan0, Metal) = that backend; else auto. */
export function gpuChoice(device: string): false | 'auto' | 'cuda' | 'vulkan' | 'metal' {
  const value = device.toLowerCase();
  if (value === 'none' || value === 'cpu') return false;
  if (value === 'auto' || value === '') return 'auto';
  for (const backend of ['cuda', 'vulkan', 'metal'] as const) if (value.startsWith(backend)) return backend;
  throw new Error(`--device "${device}" is not a device the built-in engine knows: use none, auto, or a backend device like CUDA0, Vulkan0, Metal`);
}

/** What to install when the asked-for build of node-llama-cpp is not there (it never downloads or compiles one here). */
export function missingBuild(gpu: ReturnType<typeof gpuChoice>, platform = process.platform, arch = process.arch): string {
  const os = platform === 'darwin' ? 'mac' : platform === 'win32' ? 'win' : platform;
  const name = gpu === false || gpu === 'auto' || gpu === 'metal' ? `@node-llama-cpp/${os}-${arch}${gpu === 'metal' ? '-metal' : ''}` : `@node-llama-cpp/${os}-${arch}-${gpu}`;
  return `no ${gpu === false || gpu === 'auto' ? 'CPU' : gpu} build of node-llama-cpp is installed: npm install ${name} at node-llama-cpp's version (docs/builtin-engine.md, GPUs)`;
}

/** `-ngl` for node-llama-cpp: llama-server's 999 ("all", as the argv builder writes it) is 'max'. */
export function gpuLayersOption(value: BuiltinFlags['gpuLayers']): number | 'auto' | 'max' {
  if (value === 'all' || (typeof value === 'number' && value >= 999)) return 'max';
  return value;
}

/** --pooling overrides the model's `<arch>.pooling_type` (llama_pooling_type: none 0 ... rank 4). */
async function poolingOverride(path: string, pooling: BuiltinFlags['pooling']): Promise<Record<string, unknown> | undefined> {
  if (pooling === null) return undefined;
  const arch = (await readGgufHeader(path)).metadata['general.architecture'];
  if (typeof arch !== 'string') throw new Error(`${path} names no general.architecture, so --pooling cannot be applied`);
  return { [arch]: { pooling_type: POOLING_TYPES.indexOf(pooling) } };
}

const logLine = (level: LlamaLogLevel, message: string) => {
  const text = message.trimEnd();
  if (text) process.stderr.write(`llama.cpp ${level}: ${text}\n`);
};

export async function loadEngine(flags: BuiltinFlags): Promise<LoadedEngine> {
  const mode = engineMode(flags);
  const t0 = performance.now();
  const gpu = gpuChoice(flags.device);
  const llama = await getLlama({
    gpu, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false,
    logLevel: LlamaLogLevel.warn, logger: logLine, maxThreads: flags.threads,
  }).catch((error: Error) => {
    throw new Error(error instanceof NoBinaryFoundError ? missingBuild(gpu) : error.message || error.name);
  });
  const t1 = performance.now();
  try {
    const model = await llama.loadModel({
      modelPath: flags.model,
      gpuLayers: llama.gpu === false ? 0 : gpuLayersOption(flags.gpuLayers),
      // The typed overrides know only the built-in architectures' fields; any GGUF arch works.
      metadataOverrides: (await poolingOverride(flags.model, mode === 'embedding' ? flags.pooling : null)) as never,
    });
    const t2 = performance.now();
    const timings = (templateMs = 0) => ({ backendMs: t1 - t0, modelMs: t2 - t1, contextMs: performance.now() - t2 - templateMs, templateMs });
    // llama-server's -c is the total, split across --parallel slots; node-llama-cpp's is per sequence.
    const total = flags.ctxSize > 0 ? flags.ctxSize : model.trainContextSize * flags.parallel;
    const perWorker = Math.max(1, Math.floor(total / flags.parallel));
    const options = { contextSize: perWorker, threads: flags.threads };
    const times = Array.from({ length: flags.parallel });
    const devices = llama.gpu === false ? [] : await llama.getGpuDeviceNames().catch(() => []);
    const runtime = builtinRuntime(llama.gpu, devices, model.gpuLayers, model.fileInsights.totalLayers);
    const loaded = { mode, llama, model, modelName: flags.alias ?? modelFileName(flags.model), parallel: flags.parallel, backend: backendName(llama.gpu, devices), runtime };
    const dispose = async () => {
      await model.dispose();
      await llama.dispose();
    };
    if (mode === 'embedding') {
      const embedders = await Promise.all(times.map(() => model.createEmbeddingContext(options)));
      return { ...loaded, contextSize: perWorker, sequences: null, chatWrapper: null, embedders: new WorkerPool(embedders), rankers: null, dispose, timings: timings() };
    }
    if (mode === 'reranking') {
      if (!model.fileInsights.supportsRanking) throw new Error(`${flags.model} cannot rerank: node-llama-cpp ranks only with a model that has a classifier head (a cls.weight or cls.output.weight tensor) and an EOS or SEP token, e.g. a BGE or Qwen3 reranker`);
      const rankers = await Promise.all(times.map(() => model.createRankingContext(options)));
      return { ...loaded, contextSize: rankers[0]!.contextSize, sequences: null, chatWrapper: null, embedders: null, rankers: new WorkerPool(rankers), dispose, timings: timings() };
    }
    const context = await model.createContext({ ...options, sequences: flags.parallel });
    const sequences = new WorkerPool(times.map(() => context.getSequence()));
    const t3 = performance.now();
    const chatWrapper = chatWrapperFor(model, flags);
    return { ...loaded, contextSize: context.contextSize, sequences, chatWrapper, embedders: null, rankers: null, dispose, timings: timings(performance.now() - t3) };
  } catch (error) {
    await llama.dispose().catch(() => undefined);
    throw error;
  }
}

function chatWrapperFor(model: LlamaModel, flags: BuiltinFlags): ChatWrapper {
  const choice = templateChoice(flags.chatTemplate, flags.chatTemplateFile, (path) => readFileSync(path, 'utf8'));
  if (choice.kind === 'named') return resolveChatWrapper(model, { type: choice.wrapper });
  if (choice.kind === 'jinja') return resolveChatWrapper(model, { type: 'jinjaTemplate', customWrapperSettings: { jinjaTemplate: { template: choice.template } } });
  return resolveChatWrapper(model);
}

/** The backend that runs the model: a GPU build with no GPU device still computes on the CPU. */
function backendName(gpu: Llama['gpu'], devices: readonly string[]): string {
  if (gpu === false) return 'cpu';
  return devices.length > 0 ? `${gpu} (${devices.join(', ')})` : `cpu (the ${gpu} build found no GPU)`;
}

function modelFileName(path: string): string {
  return path.split('/').pop()?.replace(/\.gguf$/i, '') || path;
}
