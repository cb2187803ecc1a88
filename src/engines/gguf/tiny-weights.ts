// The tiny model's tensors: names and shapes as llama.cpp's src/models/llama.cpp loads
// them for LLM_ARCH_LLAMA (GGUF dims fastest-first, so {n_embd, n_vocab} is n_vocab rows
// of n_embd floats). The weights are random, shaped just enough that the text is
// printable nonsense that varies, and that replies end.
import type { Prng } from './prng.js';
import type { TinyVocab, TokenKind } from './tiny-vocab.js';
import type { GgufTensor } from './writer.js';

/**
 * Hyper-parameters, written into the metadata too. The context is long because it is nearly
 * free: the KV cache takes 256 bytes a token (2 layers, 2 KV heads of 16 dims, K and V in f16),
 * 8 MiB for all 32768, so the demo slots fit their examples (an omni request with a tool
 * server's whole tool list is ~8,000 prompt tokens) without a context above the native one.
 */
export const TINY_MODEL_SHAPE = {
  contextLength: 32768,
  embedding: 64,
  layers: 2,
  heads: 4,
  headsKv: 2,
  feedForward: 128,
  rmsEpsilon: 1e-5,
} as const;

// The first embedding columns are reserved channels that no layer writes into (their
// rows of attn_output and ffn_down are zero), so after the final RMS norm they still
// describe the current token, and output.weight's matching columns act as logit terms:
//  - bias: the same value for every token, so its output column is a per-token logit
//    bias: whole words high, bytes and control tokens very low;
//  - word: set on whole words and feeding punctuation, so ',' '.' '!' '?' follow words,
//    not the start of a reply or other punctuation;
//  - stop: set on '.', '!' and '?' and feeding only <|im_end|>, so a sampled reply ends
//    after a sentence now and then and almost never elsewhere: it is never empty (it
//    starts after "assistant\n") and ends after a few dozen tokens.
const RESERVED_CHANNELS = 3;
const EMBED_CHANNELS: Record<TokenKind, readonly [bias: number, word: number, stop: number]> = {
  word: [0.5, 0.3, 0],
  stop: [0.5, 0, 1],
  comma: [0.5, 0, 0],
  end: [0.5, 0, 0],
  piece: [0.5, 0, 0],
  char: [0.5, 0, 0],
  byte: [0.5, 0, 0],
  control: [0.5, 0, 0],
};
const OUTPUT_CHANNELS: Record<TokenKind, readonly [bias: number, word: number, stop: number]> = {
  word: [1.0, 0, 0],
  stop: [0.2, 1.45, 0],
  comma: [0.1, 1.5, 0],
  end: [-1.0, 0, 3.0],
  piece: [-0.2, 0, 0],
  char: [-0.4, 0, 0],
  byte: [-2.5, 0, 0],
  control: [-2.5, 0, 0],
};
// The other columns are random, except that each word's output row leans toward the
// embedding of one other word (a single cycle through all words): greedy decoding then
// walks through the whole vocabulary instead of repeating one word forever.
const CHAIN = 0.1;
const CHAIN_NOISE_STD = 0.05;
const EMBED_STD = 0.1;
const LAYER_STD = 0.03;
const OUTPUT_STD = 0.2;

/** A classifier head (the reranker variant): `labels` outputs read from the last token. */
export interface TinyClassifier {
  readonly labels: number;
}

const CLASSIFIER_STD = 0.2;

export function tinyTensors(rng: Prng, vocab: TinyVocab, classifier?: TinyClassifier): GgufTensor[] {
  const s = TINY_MODEL_SHAPE;
  const headDim = s.embedding / s.heads;
  const n = vocab.tokens.length;
  const kvDim = (s.embedding / s.heads) * s.headsKv;
  const embd = tensor('token_embd.weight', [s.embedding, n], (row, col) => embedding(rng, vocab.kinds[row], col));
  const tensors = [embd];
  for (let layer = 0; layer < s.layers; layer++) {
    const blk = (name: string): string => `blk.${layer}.${name}.weight`;
    const random = (): number => rng.normal(LAYER_STD);
    // Rows are output features; the reserved channels' rows stay zero.
    const intoResidual = (row: number): number => (row < RESERVED_CHANNELS ? 0 : rng.normal(LAYER_STD));
    tensors.push(
      tensor(blk('attn_norm'), [s.embedding], () => 1),
      tensor(blk('attn_q'), [s.embedding, s.embedding], random),
      tensor(blk('attn_k'), [s.embedding, kvDim], random),
      tensor(blk('attn_v'), [s.embedding, kvDim], random),
      tensor(blk('attn_output'), [s.embedding, s.embedding], intoResidual),
      tensor(blk('ffn_norm'), [s.embedding], () => 1),
      tensor(blk('ffn_gate'), [s.embedding, s.feedForward], random),
      tensor(blk('ffn_up'), [s.embedding, s.feedForward], random),
      tensor(blk('ffn_down'), [s.feedForward, s.embedding], intoResidual),
    );
    // qwen3's per-head q/k RMS norms; as ones they leave the llama network's shape alone.
    if (classifier) tensors.push(tensor(blk('attn_q_norm'), [headDim], () => 1), tensor(blk('attn_k_norm'), [headDim], () => 1));
  }
  const previous = wordCycle(rng, vocab.kinds);
  tensors.push(
    tensor('output_norm.weight', [s.embedding], () => 1),
    tensor('output.weight', [s.embedding, n], (row, col) => {
      if (col < RESERVED_CHANNELS) return OUTPUT_CHANNELS[vocab.kinds[row] ?? 'control'][col] ?? 0;
      const from = previous.get(row);
      if (from === undefined) return rng.normal(OUTPUT_STD);
      return (CHAIN * (embd.data[from * s.embedding + col] ?? 0)) / EMBED_STD + rng.normal(CHAIN_NOISE_STD);
    }),
  );
  // Drawn last, so the variant's shared tensors are the chat model's, value for value.
  if (classifier) tensors.push(tensor('cls.output.weight', [s.embedding, classifier.labels], () => rng.normal(CLASSIFIER_STD)));
  return tensors;
}

function embedding(rng: Prng, kind: TokenKind | undefined, col: number): number {
  if (col < RESERVED_CHANNELS) return EMBED_CHANNELS[kind ?? 'control'][col] ?? 0;
  return rng.normal(EMBED_STD);
}

/** Maps each word to the word before it in one random cycle through all words (Sattolo). */
function wordCycle(rng: Prng, kinds: readonly TokenKind[]): Map<number, number> {
  const words = kinds.flatMap((kind, id) => (kind === 'word' ? [id] : []));
  for (let i = words.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * i);
    [words[i], words[j]] = [words[j] ?? 0, words[i] ?? 0];
  }
  return new Map(words.map((id, i) => [words[(i + 1) % words.length] ?? id, id]));
}

/** An F32 tensor filled row by row; dims are fastest-first, so dims[0] is the row length. */
function tensor(name: string, dims: readonly number[], value: (row: number, col: number) => number): GgufTensor {
  const cols = dims[0] ?? 1;
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = value(Math.floor(i / cols), i % cols);
  return { name, dims, data };
}
