// A small curated list of real public GGUF repos, so `svc model pull qwen3-0.6b` works by
// name. Each names the quant to pick and the size to expect (as published; the pull checks
// the real size against the endpoint's file list). `svc model search` finds the rest.

export interface CatalogueEntry {
  readonly id: string;
  readonly repo: string;
  readonly quant: string;
  /** The model file's size as published, in bytes (approximate for display before resolving). */
  readonly size_bytes: number;
  readonly capabilities: readonly string[];
  /** The profile a slot bound to it starts from (registry defaults.profile), if any. */
  readonly profile?: string;
  readonly description: string;
}

const MB = 1_000_000;

export const CATALOGUE: readonly CatalogueEntry[] = [
  { id: 'qwen3-0.6b', repo: 'Qwen/Qwen3-0.6B-GGUF', quant: 'Q8_0', size_bytes: 639 * MB, capabilities: ['chat'], description: 'Qwen3 0.6B: the smallest useful chat model, thinking on/off' },
  { id: 'qwen3-4b', repo: 'Qwen/Qwen3-4B-GGUF', quant: 'Q4_K_M', size_bytes: 2_500 * MB, capabilities: ['chat'], description: 'Qwen3 4B chat, thinking on/off' },
  { id: 'qwen3-8b', repo: 'Qwen/Qwen3-8B-GGUF', quant: 'Q4_K_M', size_bytes: 5_030 * MB, capabilities: ['chat'], description: 'Qwen3 8B chat, thinking on/off' },
  { id: 'qwen3-30b-a3b', repo: 'Qwen/Qwen3-30B-A3B-GGUF', quant: 'Q4_K_M', size_bytes: 18_600 * MB, capabilities: ['chat'], description: 'Qwen3 30B mixture of experts (3B active): large, fast for its size' },
  { id: 'llama-3.2-1b', repo: 'bartowski/Llama-3.2-1B-Instruct-GGUF', quant: 'Q4_K_M', size_bytes: 808 * MB, capabilities: ['chat'], description: 'Llama 3.2 1B Instruct' },
  { id: 'llama-3.2-3b', repo: 'bartowski/Llama-3.2-3B-Instruct-GGUF', quant: 'Q4_K_M', size_bytes: 2_020 * MB, capabilities: ['chat'], description: 'Llama 3.2 3B Instruct' },
  { id: 'gemma-3-4b', repo: 'ggml-org/gemma-3-4b-it-GGUF', quant: 'Q4_K_M', size_bytes: 2_490 * MB, capabilities: ['chat', 'vision'], description: 'Gemma 3 4B with its vision projector (mmproj)' },
  { id: 'gpt-oss-20b', repo: 'ggml-org/gpt-oss-20b-GGUF', quant: 'mxfp4', size_bytes: 12_100 * MB, capabilities: ['chat'], description: 'OpenAI gpt-oss 20B (MXFP4): large, needs ~16 GB' },
  { id: 'nomic-embed-text-v1.5', repo: 'nomic-ai/nomic-embed-text-v1.5-GGUF', quant: 'Q8_0', size_bytes: 146 * MB, capabilities: ['embed'], profile: 'embed', description: 'Nomic text embeddings (768 dimensions)' },
  { id: 'qwen3-embedding-0-6b-q8-0', repo: 'Qwen/Qwen3-Embedding-0.6B-GGUF', quant: 'Q8_0', size_bytes: 639 * MB, capabilities: ['embed'], profile: 'embed', description: 'Qwen3 embeddings 0.6B, the seed stacks\' embed model' },
  { id: 'bge-reranker-v2-m3-q4_k_m', repo: 'gpustack/bge-reranker-v2-m3-GGUF', quant: 'Q4_K_M', size_bytes: 438 * MB, capabilities: ['rerank'], profile: 'rerank', description: 'BGE reranker v2 m3, the seed stacks\' rerank model' },
];

export function catalogueEntry(id: string): CatalogueEntry | undefined {
  return CATALOGUE.find((entry) => entry.id === id.toLowerCase());
}
