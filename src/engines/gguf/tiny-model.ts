// A real, tiny llama-architecture model that llama.cpp and node-llama-cpp load, written
// by our own code so tests and the demo need no download (DESIGN.md, "A real model with
// no download"). Its weights are random from a fixed seed, so its text is nonsense, but
// the output layer is biased so the nonsense is printable words that end now and then.
import { writeFileAtomic } from '../../config/atomic.js';
import { createPrng } from './prng.js';
import { buildTinyVocab, type TinyVocab } from './tiny-vocab.js';
import { TINY_MODEL_SHAPE, tinyTensors } from './tiny-weights.js';
import { encodeGguf, gguf, type GgufValue } from './writer.js';

export { TINY_MODEL_SHAPE };

export const TINY_MODEL_ID = 'svc-tiny';
export const TINY_MODEL_DEFAULT_SEED = 20240607;

const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface TinyModelOptions {
  /** Seed for the random weights; the same seed gives the same bytes. */
  readonly seed?: number;
}

export function buildTinyModel(options: TinyModelOptions = {}): Buffer {
  const rng = createPrng(options.seed ?? TINY_MODEL_DEFAULT_SEED);
  const vocab = buildTinyVocab();
  return encodeGguf({ metadata: tinyMetadata(vocab), tensors: tinyTensors(rng, vocab) });
}

/** Build the model and write it atomically (temp file + rename). */
export async function writeTinyModel(path: string, options: TinyModelOptions = {}): Promise<number> {
  const bytes = buildTinyModel(options);
  await writeFileAtomic(path, bytes);
  return bytes.length;
}

function tinyMetadata(vocab: TinyVocab): Record<string, GgufValue> {
  const s = TINY_MODEL_SHAPE;
  return {
    'general.architecture': gguf.string('llama'),
    'general.name': gguf.string(TINY_MODEL_ID),
    'general.alignment': gguf.uint32(32),
    'llama.vocab_size': gguf.uint32(vocab.tokens.length),
    'llama.context_length': gguf.uint32(s.contextLength),
    'llama.embedding_length': gguf.uint32(s.embedding),
    'llama.block_count': gguf.uint32(s.layers),
    'llama.feed_forward_length': gguf.uint32(s.feedForward),
    'llama.attention.head_count': gguf.uint32(s.heads),
    'llama.attention.head_count_kv': gguf.uint32(s.headsKv),
    'llama.rope.dimension_count': gguf.uint32(s.embedding / s.heads),
    'llama.rope.freq_base': gguf.float32(10000),
    'llama.attention.layer_norm_rms_epsilon': gguf.float32(s.rmsEpsilon),
    // 1 = mean (llama_pooling_type), so llama-server --embedding works without --pooling.
    'llama.pooling_type': gguf.uint32(1),
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
