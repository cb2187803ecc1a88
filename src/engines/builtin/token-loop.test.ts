// The engine's own token loop on the real tiny model (node-llama-cpp, CPU): logprobs,
// grammars, stop strings, the budget, seeds, and UTF-8 characters split across byte tokens.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, type Llama, type LlamaModel, type Token } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyModel } from '../gguf/tiny-model.js';
import type { GenerationTarget } from './generate.js';
import { readSampling } from './request.js';
import { runTokenLoop, type LoopOptions, type TokenLogprob } from './token-loop.js';

let dir: string;
let llama: Llama;
let model: LlamaModel;
let target: GenerationTarget;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-token-loop-'));
  await writeTinyModel(join(dir, 'tiny.gguf'));
  llama = await getLlama({ gpu: false, build: 'never', usePrebuiltBinaries: true, skipDownload: true, progressLogs: false, logLevel: LlamaLogLevel.error, maxThreads: 1 });
  model = await llama.loadModel({ modelPath: join(dir, 'tiny.gguf') });
  const context = await model.createContext({ contextSize: 512, threads: 1 });
  target = { model, sequence: context.getSequence(), contextSize: context.contextSize };
});

afterAll(async () => {
  await llama?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const prompt = (text = 'Once upon a time'): Token[] => [model.tokens.bos!, ...model.tokenize(text)];

async function generate(options: Partial<LoopOptions> & { body?: Record<string, unknown> } = {}) {
  const pieces: { text: string; logprobs: TokenLogprob[] }[] = [];
  const result = await runTokenLoop(target, {
    prompt: prompt(), sampling: readSampling({ temperature: 0.9, ...options.body }), seed: 5, budget: 24, grammar: null, logprobs: null, stops: [],
    signal: new AbortController().signal, onPiece: (text, logprobs) => pieces.push({ text, logprobs }), ...options,
  });
  return { ...result, pieces, logprobs: pieces.flatMap((p) => p.logprobs) };
}

describe('runTokenLoop', () => {
  it('logprobs: one entry per token, the asked number of alternatives best first, bytes that spell the text', async () => {
    const out = await generate({ logprobs: 3, body: { ignore_eos: true } });
    expect(out.completionTokens).toBe(24);
    expect(out.finishReason).toBe('length');
    expect(out.logprobs).toHaveLength(24);
    expect(out.pieces.map((p) => p.text).join('')).toBe(out.text);
    expect(Buffer.from(out.logprobs.flatMap((e) => e.bytes)).toString('utf8')).toBe(out.text);
    for (const entry of out.logprobs) {
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.top_logprobs.length).toBeGreaterThan(0);
      expect(entry.top_logprobs.length).toBeLessThanOrEqual(3);
      const values = entry.top_logprobs.map((t) => t.logprob);
      expect(values).toEqual([...values].sort((a, b) => b - a));
      // The chosen token was sampled from these: it is never likelier than the best alternative.
      expect(entry.logprob).toBeLessThanOrEqual(values[0]! + 1e-9);
    }
    // Without logprobs, none are computed.
    expect((await generate()).logprobs).toEqual([]);
  });

  it('the same seed gives the same text and the same logprobs, whatever the sequence held before', async () => {
    const a = await generate({ logprobs: 2, seed: 11 });
    await generate({ prompt: prompt('Far away'), budget: 4 });
    const b = await generate({ logprobs: 2, seed: 11 });
    expect(b.text).toBe(a.text);
    expect(b.logprobs).toEqual(a.logprobs);
  });

  it('a grammar holds the answer to its language and ends it', async () => {
    const { compiledGrammar } = await import('./grammar-cache.js');
    const grammar = await compiledGrammar(llama, 'root ::= "{\\"n\\":" [1-9] [0-9]? "}"');
    expect(await compiledGrammar(llama, 'root ::= "{\\"n\\":" [1-9] [0-9]? "}"')).toBe(grammar); // compiled once
    for (const seed of [1, 2, 3]) {
      const out = await generate({ grammar, seed, budget: 100 });
      expect(out.text).toMatch(/^\{"n":[1-9][0-9]?\}$/);
      expect(out.finishReason).toBe('stop');
    }
    // Under a grammar, ignore_eos cannot keep the model going past the end of the document.
    expect((await generate({ grammar, budget: 100, body: { ignore_eos: true } })).text).toMatch(/^\{"n":\d+\}$/);
  });

  it('stop strings end the answer before them; the budget ends it with length', async () => {
    const free = await generate({ body: { ignore_eos: true } });
    const word = free.text.split(' ').filter((w) => /^[a-z]+$/.test(w)).at(-1)!;
    const at = free.text.indexOf(` ${word}`);
    const stopped = await generate({ stops: [` ${word}`], body: { ignore_eos: true } });
    expect(stopped.text).toBe(free.text.slice(0, at));
    expect(stopped.finishReason).toBe('stop');
    const short = await generate({ budget: 3, body: { ignore_eos: true } });
    expect(short).toMatchObject({ completionTokens: 3, finishReason: 'length' });
  });

  it('a character made of byte tokens goes out whole, and each byte token has its byte', async () => {
    const { compiledGrammar } = await import('./grammar-cache.js');
    const grammar = await compiledGrammar(llama, 'root ::= "é€"');
    const out = await generate({ grammar, logprobs: 0, budget: 20 });
    expect(out.text).toBe('é€');
    for (const piece of out.pieces) expect(piece.text).not.toContain('\uFFFD');
    expect(out.logprobs.flatMap((e) => e.bytes)).toEqual([...Buffer.from('é€', 'utf8')]);
  });

  it('an aborted signal stops at once', async () => {
    const controller = new AbortController();
    controller.abort();
    const out = await generate({ signal: controller.signal });
    expect(out).toMatchObject({ aborted: true, completionTokens: 0, text: '' });
  });
});
