// The engine's own generation loop, for what LlamaChat and LlamaCompletion cannot do:
// per-token probabilities (logprobs) and a grammar of our own. One token at a time on the
// context sequence, with the request's sampling (the same values generate.ts gives
// node-llama-cpp), stop strings, end-of-generation tokens, the token budget and the abort
// signal. Text goes out in pieces that never split a UTF-8 character.
import { LlamaGrammarEvaluationState, type LlamaGrammar, type Token } from 'node-llama-cpp';
import type { FinishReason, TokenLogprob } from './answer-types.js';
import { eogBan, type GenerationTarget } from './generate.js';
import type { Sampling } from './request.js';
import { StopScanner, type TextChunk } from './stop-scanner.js';
import { tokenPiece } from './token-bytes.js';

export type { TokenLogprob } from './answer-types.js';

export interface LoopOptions {
  prompt: Token[];
  sampling: Sampling;
  seed: number;
  /** Most tokens to generate (tokenBudget). */
  budget: number;
  grammar: LlamaGrammar | null;
  /** Alternatives per token when logprobs are asked for; null = none. */
  logprobs: number | null;
  /** Strings that end the answer (the client's `stop`, the chat template's end markers). */
  stops: readonly string[];
  /** Tokens that end the answer besides end-of-generation (a chat template's special end marker). */
  stopTokens?: ReadonlySet<Token>;
  signal: AbortSignal;
  /** A piece of the answer: its text, its tokens' logprobs (when asked for) and how many tokens made it. */
  onPiece: (text: string, logprobs: TokenLogprob[], tokens: number) => void;
}

export interface LoopResult {
  text: string;
  finishReason: FinishReason;
  completionTokens: number;
  aborted: boolean;
}

/** A byte-level token run longer than this is emitted even if it still ends mid-character. */
const MAX_PARTIAL_TOKENS = 4;
/** The tokens the penalties look back on (generate.ts gives node-llama-cpp the same). */
const PENALTY_WINDOW = 64;

/** log(p), kept finite: JSON has no -Infinity, and OpenAI writes -9999 for "never". */
const logOf = (p: number) => (p > 0 ? Math.max(Math.log(p), -9999) : -9999);

function logprobOf(target: GenerationTarget, token: Token, probabilities: Map<Token, number>, top: number, before: readonly Token[]): TokenLogprob {
  const alternatives: TokenLogprob['top_logprobs'] = [];
  for (const [candidate, p] of probabilities) {
    if (alternatives.length >= top || p <= 0) break;
    alternatives.push({ ...tokenPiece(target.model, candidate, before), logprob: logOf(p) });
  }
  return { ...tokenPiece(target.model, token, before), logprob: logOf(probabilities.get(token) ?? 0), top_logprobs: alternatives };
}

/**
 * The prompt tokens still to evaluate. What the sequence already holds of the prompt is
 * reused (at least one token is evaluated, for its logits), except with logprobs: a token
 * evaluated alone gives logits that differ from the same token evaluated in a batch in the
 * last digits, and a client comparing two answers of one seed expects equal numbers.
 */
async function promptTail(target: GenerationTarget, prompt: Token[], exact: boolean): Promise<Token[]> {
  if (exact) await target.sequence.clearHistory();
  else await target.sequence.adaptStateToTokens(prompt.slice(0, -1), false);
  return prompt.slice(target.sequence.nextTokenIndex);
}

export async function runTokenLoop(target: GenerationTarget, o: LoopOptions): Promise<LoopResult> {
  const { model } = target;
  const s = o.sampling;
  const generated: Token[] = [];
  const penalised = s.repeatPenalty !== 1 || s.presencePenalty !== 0 || s.frequencyPenalty !== 0;
  const nl = model.tokens.nl;
  const iterator = target.sequence.evaluateWithMetadata(await promptTail(target, o.prompt, o.logprobs !== null), { probabilities: o.logprobs !== null } as { probabilities: true }, {
    temperature: s.temperature, topP: s.topP, topK: s.topK, minP: s.minP, seed: o.seed, yieldEogToken: true,
    ...(o.grammar && { grammarEvaluationState: new LlamaGrammarEvaluationState({ model, grammar: o.grammar }) }),
    ...(penalised && {
      repeatPenalty: {
        punishTokens: () => generated.slice(-PENALTY_WINDOW).filter((t) => t !== nl),
        maxPunishTokens: PENALTY_WINDOW, penalty: s.repeatPenalty, presencePenalty: s.presencePenalty, frequencyPenalty: s.frequencyPenalty,
      },
    }),
    // A grammar ends its document with an end-of-generation token: banning those would leave nothing to sample.
    ...(s.ignoreEos && !o.grammar && { tokenBias: eogBan(model) }),
  });
  // One item per token: its logprob, or null when none were asked for.
  const scanner = new StopScanner<TokenLogprob | null>(o.stops);
  let text = '';
  const release = (chunks: TextChunk<TokenLogprob | null>[]) => {
    for (const chunk of chunks) {
      text += chunk.text;
      if (chunk.text !== '' || chunk.items.length > 0) o.onPiece(chunk.text, chunk.items.filter((e) => e !== null), chunk.items.length);
    }
  };
  // Tokens become text in runs: a run that ends inside a UTF-8 character waits for the next token.
  let run: Token[] = [];
  let runLogprobs: (TokenLogprob | null)[] = [];
  let spoken: Token[] = o.prompt.slice(-4);
  const settle = (): TextChunk<TokenLogprob | null> => {
    const chunk = { text: model.detokenize(run, false, spoken), items: runLogprobs };
    spoken = [...spoken, ...run].slice(-4);
    run = [];
    runLogprobs = [];
    return chunk;
  };
  const result = (finishReason: FinishReason): LoopResult => ({ text, finishReason, completionTokens: generated.length, aborted: o.signal.aborted });
  let finishReason: FinishReason = 'length';
  try {
    for await (const step of iterator) {
      if (o.signal.aborted) break;
      const token = step.token;
      if (model.isEogToken(token) || o.stopTokens?.has(token)) {
        finishReason = 'stop';
        break;
      }
      // Only asked for (and only present) with logprobs: the whole distribution per token is not free.
      runLogprobs.push(o.logprobs !== null && step.probabilities ? logprobOf(target, token, step.probabilities, o.logprobs, generated.length > 0 ? generated : o.prompt) : null);
      generated.push(token);
      run.push(token);
      const waiting = model.detokenize(run, false).endsWith('\uFFFD') && run.length < MAX_PARTIAL_TOKENS && generated.length < o.budget;
      if (waiting) continue;
      const scan = scanner.push(settle());
      release(scan.release);
      if (scan.stopped) return result('stop');
      if (generated.length >= o.budget) break;
    }
    if (run.length > 0) {
      const scan = scanner.push(settle());
      release(scan.release);
      if (scan.stopped) return result('stop');
    }
    release(scanner.flush());
    return result(finishReason);
  } finally {
    await iterator.return();
  }
}
