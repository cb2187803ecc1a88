// A completion with logprobs: the raw prompt continued on the engine's own token loop
// (LlamaCompletion has no per-token probabilities). The prompt is tokenized as
// generate.ts does for LlamaCompletion, BOS included where the model wants one, so both
// ways see the same tokens and report the same usage.
import type { Token } from 'node-llama-cpp';
import { tokenBudget, type GenerationTarget, type Generated } from './generate.js';
import type { Sampling } from './request.js';
import { runTokenLoop, type TokenLogprob } from './token-loop.js';

export async function ownCompletion(target: GenerationTarget, prompt: string, s: Sampling, seed: number, top: number, onPiece: (text: string, logprobs: TokenLogprob[]) => void, signal: AbortSignal): Promise<Generated> {
  const { model } = target;
  const bos = model.tokens.shouldPrependBosToken ? model.tokens.bos : null;
  const tokens: Token[] = [...(bos !== null ? [bos] : []), ...model.tokenize(prompt, false, bos !== null ? 'trimLeadingSpace' : undefined)];
  const budget = tokenBudget(s.maxTokens, tokens.length, target.contextSize);
  const logprobs: TokenLogprob[] = [];
  if (budget === 0) return { text: '', reasoning: '', finishReason: 'length', promptTokens: tokens.length, completionTokens: 0, aborted: false, logprobs };
  const result = await runTokenLoop(target, {
    prompt: tokens, sampling: s, seed, budget, grammar: null, logprobs: top, stops: s.stop, signal,
    onPiece: (text, entries) => {
      logprobs.push(...entries);
      onPiece(text, entries);
    },
  });
  return { ...result, reasoning: '', promptTokens: tokens.length, logprobs };
}
