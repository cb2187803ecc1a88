import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ggufModelFacts, readGgufHeader, type GgufHeader } from './reader.js';
import { TINY_MODEL_ID, TINY_RERANKER_ID } from '../../protocol/builtin-models.js';
import { TINY_MODEL_SHAPE, buildTinyModel, writeTinyModel } from './tiny-model.js';
import { TOKEN_TYPE } from './tiny-vocab.js';

let dir: string;
let path: string;
let header: GgufHeader;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-tiny-'));
  path = join(dir, 'tiny.gguf');
  await writeTinyModel(path);
  header = await readGgufHeader(path);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const strings = (value: unknown): string[] => value as string[];
const numbers = (value: unknown): number[] => value as number[];

describe('the tiny model', () => {
  it('is byte-identical for the same seed and differs for another', () => {
    const a = buildTinyModel();
    expect(a.equals(buildTinyModel())).toBe(true);
    expect(a.equals(readFileSync(path))).toBe(true);
    expect(buildTinyModel({ seed: 7 }).equals(buildTinyModel({ seed: 7 }))).toBe(true);
    const b = buildTinyModel({ seed: 7 });
    expect(b.length).toBe(a.length);
    expect(b.equals(a)).toBe(false);
  });

  it('is under 1 MB, and was written atomically (no temp file left)', () => {
    expect(readFileSync(path).length).toBeLessThan(1024 * 1024);
    expect(readdirSync(dir)).toEqual(['tiny.gguf']);
  });

  it('describes a llama model with our context length, template and pooling', () => {
    expect(header.version).toBe(3);
    expect(ggufModelFacts(header)).toEqual({
      architecture: 'llama',
      name: TINY_MODEL_ID,
      contextLength: TINY_MODEL_SHAPE.contextLength,
      embeddingLength: TINY_MODEL_SHAPE.embedding,
      poolingType: 1,
      chatTemplate: expect.stringContaining('<|im_start|>'),
    });
    expect(header.metadata['general.alignment']).toBe(32);
    expect(header.metadata['tokenizer.ggml.model']).toBe('llama');
    // token_embd, output_norm, output, and 9 tensors per layer.
    expect(header.tensorCount).toBe(3 + 9 * TINY_MODEL_SHAPE.layers);
  });

  it('has an SPM vocabulary with 256 byte tokens and ChatML control tokens', () => {
    const tokens = strings(header.metadata['tokenizer.ggml.tokens']);
    const types = numbers(header.metadata['tokenizer.ggml.token_type']);
    expect(numbers(header.metadata['tokenizer.ggml.scores'])).toHaveLength(tokens.length);
    expect(types).toHaveLength(tokens.length);
    expect(header.metadata['llama.vocab_size']).toBe(tokens.length);
    const bytes = tokens.filter((t, i) => types[i] === TOKEN_TYPE.byte);
    expect(bytes).toHaveLength(256);
    expect(bytes[0]).toBe('<0x00>');
    expect(bytes[10]).toBe('<0x0A>');
    expect(bytes[255]).toBe('<0xFF>');
    const typeOf = (text: string): number | undefined => types[tokens.indexOf(text)];
    expect(typeOf('<|im_start|>')).toBe(TOKEN_TYPE.control);
    expect(typeOf('<|im_end|>')).toBe(TOKEN_TYPE.control);
    expect(tokens.slice(0, 3)).toEqual(['<unk>', '<s>', '</s>']);
    expect(header.metadata['tokenizer.ggml.eos_token_id']).toBe(tokens.indexOf('<|im_end|>'));
    expect(header.metadata['tokenizer.ggml.bos_token_id']).toBe(1);
    expect(tokens).toContain('▁the');
    expect(tokens.filter((t, i) => types[i] === TOKEN_TYPE.normal).length).toBeGreaterThan(300);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('the tiny reranker', () => {
  it('is a qwen3 model with a yes/no classifier head and rank pooling', async () => {
    const rerankPath = join(dir, 'rerank.gguf');
    await writeTinyModel(rerankPath, { variant: 'reranker' });
    const h = await readGgufHeader(rerankPath);
    expect(ggufModelFacts(h)).toMatchObject({ architecture: 'qwen3', name: TINY_RERANKER_ID, contextLength: TINY_MODEL_SHAPE.contextLength, poolingType: 4 });
    expect(h.metadata['qwen3.classifier.output_labels']).toEqual(['yes', 'no']);
    // The chat model's tensors, plus q/k norms per layer and cls.output.weight.
    expect(h.tensorCount).toBe(3 + 11 * TINY_MODEL_SHAPE.layers + 1);
    expect(buildTinyModel({ variant: 'reranker' }).equals(readFileSync(rerankPath))).toBe(true);
    expect(buildTinyModel({ variant: 'reranker', seed: 7 }).equals(readFileSync(rerankPath))).toBe(false);
  });

  it('leaves the chat model as it was (the variant is opt-in)', () => {
    expect(buildTinyModel({ variant: 'chat' }).equals(buildTinyModel())).toBe(true);
  });
});
