// A chat turn that needs more than LlamaChat gives: JSON output (response_format), tool
// calls, logprobs. Which way a request goes is a pure decision (chatRoute); the turns
// themselves run on the engine's own token loop, with the prompt rendered by the chat
// wrapper (tools documented in the model's own format), and for tool_choice "auto" on
// LlamaChat first, which knows the wrapper's call syntax and so tells when the model
// starts a call (tool-choice-auto.ts).
import { randomBytes } from 'node:crypto';
import type { ChatHistoryItem, ChatModelFunctions, ChatWrapper, LlamaText, Token } from 'node-llama-cpp';
import { toChatHistory, withOpenResponse, type ResponsePart } from './chat-history.js';
import { chatFunctions } from './function-docs.js';
import { tokenBudget, type Delta, type GenerationTarget, type Generated } from './generate.js';
import { compiledGrammar } from './grammar-cache.js';
import type { ChatRequest } from './request.js';
import { runTokenLoop } from './token-loop.js';
import { callsGrammar } from './tool-request.js';
import { ToolCallStream } from './tool-call-stream.js';

/** plain: LlamaChat as before; own: the token loop (JSON, logprobs, tools documented but not called); calls: forced tool calls; auto: the model chooses. */
export type ChatRoute = 'plain' | 'own' | 'calls' | 'auto';

export function chatRoute(request: Pick<ChatRequest, 'tools' | 'responseGrammar' | 'logprobs'>): ChatRoute {
  const { choice, functions } = request.tools;
  if (functions.length > 0 && choice === 'auto') return 'auto';
  if (functions.length > 0 && choice !== 'none') return 'calls';
  if (functions.length > 0 || request.responseGrammar !== null || request.logprobs !== null) return 'own';
  return 'plain';
}

/** One choice of a chat request, with everything it needs to run. */
export interface ChatTurn {
  target: GenerationTarget;
  wrapper: ChatWrapper;
  request: ChatRequest;
  seed: number;
  signal: AbortSignal;
  onDelta: (delta: Delta) => void;
}

export const newCallId = () => `call_${randomBytes(12).toString('hex')}`;

interface RenderedPrompt {
  tokens: Token[];
  /** The wrapper's end markers: special tokens, or text. */
  stopTokens: Set<Token>;
  stops: string[];
}

function render(turn: ChatTurn, history: readonly ChatHistoryItem[], functions?: ChatModelFunctions): RenderedPrompt {
  const { model } = turn.target;
  const state = turn.wrapper.generateContextState({ chatHistory: history, ...(functions && { availableFunctions: functions, documentFunctionParams: true }) });
  const stopTokens = new Set<Token>();
  const stops: string[] = [];
  for (const trigger of state.stopGenerationTriggers as LlamaText[]) {
    const tokens = trigger.tokenize(model.tokenizer);
    if (tokens.length === 1 && (model.isSpecialToken(tokens[0]) || model.isEogToken(tokens[0]))) stopTokens.add(tokens[0]!);
    else if (trigger.toString() !== '') stops.push(trigger.toString());
  }
  return { tokens: state.contextText.tokenize(model.tokenizer), stopTokens, stops };
}

const documented = (request: ChatRequest) => (request.tools.functions.length > 0 ? chatFunctions(request.tools.functions) : undefined);

/** A text (or JSON) answer on the token loop, after `prefix` (what the model already said in this turn). */
export async function ownTextAnswer(turn: ChatTurn, prefix: readonly ResponsePart[] = []): Promise<Generated> {
  const { request } = turn;
  const prompt = render(turn, withOpenResponse(toChatHistory(request.messages), prefix), documented(request));
  const budget = tokenBudget(request.sampling.maxTokens, prompt.tokens.length, turn.target.contextSize);
  const grammar = request.responseGrammar === null ? null : await compiledGrammar(turn.target.model.llama, request.responseGrammar);
  const logprobs = request.logprobs === null ? undefined : ([] as NonNullable<Generated['logprobs']>);
  // A new answer starts at its first visible character, as LlamaChat starts it (the template's
  // "assistant\n" is followed by " word"); a continued one (a trailing assistant message) keeps its spaces.
  const fresh = !prefix.some((part) => typeof part === 'string') && request.messages.at(-1)?.role !== 'assistant';
  let text = '';
  const result = budget === 0 ? null : await runTokenLoop(turn.target, {
    prompt: prompt.tokens, sampling: request.sampling, seed: turn.seed, budget, grammar, logprobs: request.logprobs,
    stops: [...request.sampling.stop, ...prompt.stops], stopTokens: prompt.stopTokens, signal: turn.signal,
    onPiece: (piece, entries) => {
      const content = fresh && text === '' ? piece.trimStart() : piece;
      text += content;
      logprobs?.push(...entries);
      if (content !== '' || (logprobs && entries.length > 0)) turn.onDelta({ content, ...(logprobs && { logprobs: entries }) });
    },
  });
  return {
    text, reasoning: '', finishReason: result?.finishReason ?? 'length', promptTokens: prompt.tokens.length,
    completionTokens: result?.completionTokens ?? 0, aborted: result?.aborted ?? false, ...(logprobs && { logprobs }),
  };
}

/**
 * Tool calls on the token loop: a JSON array of calls that the grammar holds to the
 * functions' parameters, streamed as OpenAI streams calls. `only` narrows the functions to
 * those the model chose; `prefix` is what it said in this turn before calling. Only whole
 * calls are answered: a call's deltas are held until it is whole, so one that max_tokens
 * cuts is neither streamed nor returned, and the finish_reason then says `length`.
 */
export async function ownCallsAnswer(turn: ChatTurn, prefix: readonly ResponsePart[] = [], only?: readonly string[]): Promise<Generated> {
  const { request } = turn;
  const prompt = render(turn, withOpenResponse(toChatHistory(request.messages), prefix), documented(request));
  const budget = tokenBudget(request.sampling.maxTokens, prompt.tokens.length, turn.target.contextSize);
  const grammar = await compiledGrammar(turn.target.model.llama, callsGrammar(request.tools, only));
  const parser = new ToolCallStream();
  const ids: string[] = [];
  const logprobs = request.logprobs === null ? undefined : ([] as NonNullable<Generated['logprobs']>);
  // Pieces that start or extend no call (the array's brackets) pass their logprobs on to the next delta.
  let pending: NonNullable<Generated['logprobs']> = [];
  // Parallel calls end after a whole call when what is left of the budget would not hold one
  // more as long as the longest so far: better one call fewer than the last one cut in half.
  const enough = new AbortController();
  const leave = () => enough.abort();
  turn.signal.addEventListener('abort', leave, { once: true });
  let used = 0;
  let callStart = 0;
  let longest = 0;
  // Deltas of calls not yet whole, by call index; sent once the call is, in their order.
  let held: Array<{ index: number; delta: Delta }> = [];
  const release = (whole: number) => {
    for (const { delta } of held.filter((h) => h.index < whole)) turn.onDelta(delta);
    held = held.filter((h) => h.index >= whole);
  };
  const result = budget === 0 ? null : await runTokenLoop(turn.target, {
    // The client's stop strings are for text: one inside a call's arguments would break them.
    prompt: prompt.tokens, sampling: request.sampling, seed: turn.seed, budget, grammar, logprobs: request.logprobs,
    stops: [], stopTokens: prompt.stopTokens, signal: enough.signal,
    onPiece: (text, entries, tokens) => {
      used += tokens;
      logprobs?.push(...entries);
      pending.push(...entries);
      for (const event of parser.push(text)) {
        const attach = logprobs && pending.length > 0 ? { logprobs: pending } : {};
        pending = [];
        if (event.kind === 'start') {
          callStart = used;
          ids.push(newCallId());
          held.push({ index: event.index, delta: { toolCall: { index: event.index, id: ids[event.index]!, type: 'function', function: { name: event.name, arguments: '' } }, ...attach } });
        } else {
          held.push({ index: event.index, delta: { toolCall: { index: event.index, function: { arguments: event.text } }, ...attach } });
        }
      }
      release(parser.whole);
      if (!parser.betweenCalls) return;
      longest = Math.max(longest, used - callStart);
      if (budget - used < longest) enough.abort();
    },
  }).finally(() => turn.signal.removeEventListener('abort', leave));
  // A cut call's tokens still count (usage, logprobs): their logprobs go out without it.
  const whole = parser.whole;
  pending = [...held.flatMap(({ delta }) => delta.logprobs ?? []), ...pending];
  if (logprobs && pending.length > 0) turn.onDelta({ logprobs: pending });
  const toolCalls = parser.calls.slice(0, whole).map((c, i) => ({ id: ids[i] ?? newCallId(), name: c.name, arguments: c.arguments }));
  const ended = parser.complete || (parser.betweenCalls && !turn.signal.aborted);
  const finishReason = result === null ? 'length' : ended && toolCalls.length > 0 ? 'tool_calls' : result.finishReason;
  return {
    text: '', reasoning: '', finishReason, promptTokens: prompt.tokens.length, completionTokens: result?.completionTokens ?? 0,
    aborted: turn.signal.aborted, toolCalls, ...(logprobs && { logprobs }),
  };
}
