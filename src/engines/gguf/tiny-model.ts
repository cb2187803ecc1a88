// A real, tiny llama-architecture model that llama.cpp and node-llama-cpp load, written
// by our own code so tests and the demo need no download (DESIGN.md, "A real model with
// no download"). Its weights are random from a fixed seed, so its text is nonsense, but
// the output layer is biased so the nonsense is printable words that end now and then.
//
// The `reranker` variant is the same network as a qwen3-architecture model with a
// classifier head (cls.output.weight, labels yes/no), pooling `rank`. Ranking needs that
// head: node-llama-cpp's ranking context refuses a model without cls.weight or
// cls.output.weight, and llama.cpp loads a classifier head only for a few architectures
// (bert-likes and qwen3, not llama; an extra tensor in a llama file fails to load). Qwen3 is
// llama plus per-head q/k RMS norms, so the variant adds those (as ones) and the head.
import { writeFileAtomic } from '../../config/atomic.js';
import { TINY_MODEL_ID, TINY_RERANKER_ID } from '../../protocol/builtin-models.js';
import { createPrng } from './prng.js';
import { buildTinyVocab, type TinyVocab } from './tiny-vocab.js';
import { TINY_MODEL_SHAPE, tinyTensors } from './tiny-weights.js';
import { encodeGguf, gguf, type GgufValue } from './writer.js';

export { TINY_MODEL_SHAPE };

export const TINY_MODEL_DEFAULT_SEED = 20240607;

const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export type TinyModelVariant = 'chat' | 'reranker';

export interface TinyModelOptions {
  /** Seed for the random weights; the same seed gives the same bytes. */
  readonly seed?: number;
  /** `chat` (default): llama architecture; `reranker`: qwen3 with a yes/no classifier head. */
  readonly variant?: TinyModelVariant;
}

/** llama_pooling_type: 1 = mean, 4 = rank. */
const POOLING = { chat: 1, reranker: 4 } as const;
const RERANK_LABELS = ['yes', 'no'];

export function buildTinyModel(options: TinyModelOptions = {}): Buffer {
  const rng = createPrng(options.seed ?? TINY_MODEL_DEFAULT_SEED);
  const vocab = buildTinyVocab();
  const variant = options.variant ?? 'chat';
  const classifier = variant === 'reranker' ? { labels: RERANK_LABELS.length } : undefined;
  return encodeGguf({ metadata: tinyMetadata(vocab, variant), tensors: tinyTensors(rng, vocab, classifier) });
}

/** Build the model and write it atomically (temp file + rename). */
export async function writeTinyModel(path: string, options: TinyModelOptions = {}): Promise<number> {
  const bytes = buildTinyModel(options);
  await writeFileAtomic(path, bytes);
  return bytes.length;
}

function tinyMetadata(vocab: TinyVocab, variant: TinyModelVariant): Record<string, GgufValue> {
  const s = TINY_MODEL_SHAPE;
  const arch = variant === 'reranker' ? 'qwen3' : 'llama';
  return {
    'general.architecture': gguf.string(arch),
    'general.name': gguf.string(variant === 'reranker' ? TINY_RERANKER_ID : TINY_MODEL_ID),
    'general.alignment': gguf.uint32(32),
    [`${arch}.vocab_size`]: gguf.uint32(vocab.tokens.length),
    [`${arch}.context_length`]: gguf.uint32(s.contextLength),
    [`${arch}.embedding_length`]: gguf.uint32(s.embedding),
    [`${arch}.block_count`]: gguf.uint32(s.layers),
    [`${arch}.feed_forward_length`]: gguf.uint32(s.feedForward),
    [`${arch}.attention.head_count`]: gguf.uint32(s.heads),
    [`${arch}.attention.head_count_kv`]: gguf.uint32(s.headsKv),
    [`${arch}.rope.dimension_count`]: gguf.uint32(s.embedding / s.heads),
    [`${arch}.rope.freq_base`]: gguf.float32(10000),
    [`${arch}.attention.layer_norm_rms_epsilon`]: gguf.float32(s.rmsEpsilon),
    // The chat model pools by mean, so llama-server --embedding works without --pooling;
    // the reranker pools by rank, so it reranks without --pooling too.
    [`${arch}.pooling_type`]: gguf.uint32(POOLING[variant]),
    ...(variant === 'reranker' && { [`${arch}.classifier.output_labels`]: gguf.strings(RERANK_LABELS) }),
    'tokenizer.ggml.model': gguf.string('llama'),
    'tokenizer.ggml.tokens': gguf.strings(vocab.tokens),
    'tokenizer.ggml.scores': gguf.float32s(vocab.scores),
    'tokenizer.ggml.token_type': gguf.int32s(vocab.types),
    'tokenizer.ggml.bos_token_id': gguf.uint32(vocab.bosId),
    'tokenizer.ggml.eos_token_id': gguf.uint32(vocab.eosId),
    'tokenizer.ggml.unknown_token_id': gguf.uint32(vocab.unkId),
    'tokenizer.ggml.padding_token_id': gguf.uint32(vocab.unkId),
    'tokenizer.ggml.add_bos_token': gguf.bool(true),
    'tokenizer.ggml.add_eos_token': gguf.bool(false),
    'tokenizer.chat_template': gguf.string(CHATML_TEMPLATE),
  };
}
