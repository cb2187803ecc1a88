// Will the model run here? Weights (the files' size) plus the KV cache at the target
// context plus a small compute allowance, against the RAM free now plus the GPUs' VRAM
// (llama.cpp splits layers across both). Pure: the caller measures the host.
import type { GgufHeader } from '../../engines/gguf/reader.js';

export interface ModelShape {
  readonly architecture: string | null;
  readonly contextLength: number | null;
  readonly layers: number | null;
  readonly embedding: number | null;
  readonly heads: number | null;
  /** KV heads summed over layers' maximum (grouped-query attention shares them). */
  readonly headsKv: number | null;
  readonly keyLength: number | null;
  readonly valueLength: number | null;
  /** The model ships multi-token-prediction heads. */
  readonly mtp: boolean;
}

export interface FitEstimate {
  readonly context: number;
  readonly weights_mb: number;
  readonly kv_cache_mb: number;
  readonly overhead_mb: number;
  readonly total_mb: number;
  readonly ram_available_mb: number;
  readonly vram_mb: number;
  readonly budget_mb: number;
  readonly fits: boolean;
}

/** The context a fit check and a new slot assume unless told: the native one, at most this. */
export const DEFAULT_FIT_CONTEXT = 8192;
const MiB = 1024 * 1024;
const KV_BYTES = 2; // f16 cache, llama.cpp's default

const num = (value: unknown): number | null => {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.length ? Math.max(...value.map((v) => num(v) ?? 0)) : null;
  return null;
};

export function modelShape(header: GgufHeader): ModelShape {
  const meta = header.metadata;
  const architecture = typeof meta['general.architecture'] === 'string' ? (meta['general.architecture'] as string) : null;
  const arch = (key: string) => num(meta[`${architecture ?? ''}.${key}`]);
  return {
    architecture,
    contextLength: arch('context_length'),
    layers: arch('block_count'),
    embedding: arch('embedding_length'),
    heads: arch('attention.head_count'),
    headsKv: arch('attention.head_count_kv') ?? arch('attention.head_count'),
    keyLength: arch('attention.key_length'),
    valueLength: arch('attention.value_length'),
    mtp: (arch('nextn_predict_layers') ?? 0) > 0,
  };
}

export function kvCacheBytes(shape: ModelShape, context: number): number {
  const { layers, embedding, heads, headsKv } = shape;
  if (!layers || !embedding || !heads || !headsKv) return 0;
  const headDim = embedding / heads;
  const perToken = headsKv * ((shape.keyLength ?? headDim) + (shape.valueLength ?? headDim)) * KV_BYTES;
  return layers * context * perToken;
}

export function estimateFit(input: { weightsBytes: number; shape: ModelShape | null; context?: number; ramAvailableMb: number; vramMb: number }): FitEstimate {
  const native = input.shape?.contextLength ?? DEFAULT_FIT_CONTEXT;
  const context = input.context ?? Math.min(native, DEFAULT_FIT_CONTEXT);
  const weights = input.weightsBytes / MiB;
  const kv = input.shape ? kvCacheBytes(input.shape, context) / MiB : 0;
  const overhead = 64 + weights * 0.05;
  const total = weights + kv + overhead;
  const budget = input.ramAvailableMb + input.vramMb;
  const round = (n: number) => Math.ceil(n);
  return {
    context,
    weights_mb: round(weights),
    kv_cache_mb: round(kv),
    overhead_mb: round(overhead),
    total_mb: round(total),
    ram_available_mb: input.ramAvailableMb,
    vram_mb: input.vramMb,
    budget_mb: budget,
    fits: total <= budget,
  };
}
