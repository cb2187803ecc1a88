// POST /v1/chat/completions and /v1/completions. Each request takes one context sequence
// from the pool for all its choices (n), so up to --parallel requests generate at once and
// the rest wait; a client that leaves stops its generation (the signal) or its wait.
import { answerMeta, chatChunk, chatCompletion, chatUsageChunk, textChunk, textCompletion, usage, type ChatDelta, type ChoiceResult } from './answers.js';
import type { LoadedEngine } from './engine.js';
import { choiceSeed, generateChat, generateCompletion, type Delta, type Generated } from './generate.js';
import { notSupported, sendJson, type SseWriter } from './http-io.js';
import { ownCompletion } from './own-completion.js';
import type { WorkerPool } from './pool.js';
import { readChatRequest, readCompletionRequest } from './request.js';
import type { RequestLog } from './request-log.js';
import { chatRoute, ownCallsAnswer, ownTextAnswer, type ChatRoute, type ChatTurn } from './structured-chat.js';
import { thinkingWrapper } from './thinking.js';
import { autoToolAnswer } from './tool-choice-auto.js';

export interface RouteContext {
  engine: LoadedEngine;
  body: Record<string, unknown>;
  reply: SseWriter;
  signal: AbortSignal;
  log: RequestLog;
}

/** A line when a request has to queue, so a slow answer can be told from a slow model. */
function noteQueue(ctx: RouteContext, kind: string, pool: WorkerPool<unknown>): void {
  if (pool.busy < pool.size) return;
  ctx.log.line(`${kind}: all ${pool.size} sequences busy; waiting in the queue at position ${pool.waiting + 1}`);
}

function chatEngine(engine: LoadedEngine) {
  if (!engine.sequences || !engine.chatWrapper) {
    throw notSupported(`This server does not support completions. Start it without \`--${engine.mode === 'reranking' ? 'reranking' : 'embeddings'}\``);
  }
  return { sequences: engine.sequences, wrapper: engine.chatWrapper };
}

const choices = (results: readonly Generated[], textOffset?: (index: number) => number): ChoiceResult[] =>
  results.map((r, i) => ({
    index: i, text: r.text, reasoning: r.reasoning, finishReason: r.finishReason,
    ...(r.toolCalls && { toolCalls: r.toolCalls }), ...(r.logprobs && { logprobs: r.logprobs, ...(textOffset && { textOffset: textOffset(i) }) }),
  }));

/** One chat choice: LlamaChat for a plain request (its speed untouched), else the structured turns. */
function chatChoice(route: ChatRoute, turn: ChatTurn): Promise<Generated> {
  switch (route) {
    case 'plain':
      return generateChat(turn.target, turn.wrapper, turn.request.messages, turn.request.sampling, turn.seed, turn.onDelta, turn.signal);
    case 'own':
      return ownTextAnswer(turn);
    case 'calls':
      return ownCallsAnswer(turn);
    case 'auto':
      return autoToolAnswer(turn);
  }
}

/** The delta of a chunk: thought, a piece of a tool call, or text (logprobs ride on the chunk, not the delta). */
function chunkDelta(delta: Delta): ChatDelta {
  if (delta.reasoning !== undefined) return { reasoning_content: delta.reasoning };
  if (delta.toolCall) return { tool_calls: [delta.toolCall] };
  return delta.content === undefined ? {} : { content: delta.content };
}

/** Usage: each prompt counted once (n choices share it), every choice's tokens counted. */
function usageOf(results: readonly Generated[], n: number) {
  const prompt = results.filter((_, i) => i % n === 0).reduce((sum, r) => sum + r.promptTokens, 0);
  return usage(prompt, results.reduce((sum, r) => sum + r.completionTokens, 0));
}

export async function chatCompletions(ctx: RouteContext): Promise<void> {
  const { sequences, wrapper: base } = chatEngine(ctx.engine);
  const request = readChatRequest(ctx.body);
  const wrapper = thinkingWrapper(base, request.enableThinking, ctx.engine.model.tokenizer);
  const { sampling } = request;
  const meta = answerMeta('chatcmpl', request.model ?? ctx.engine.modelName);
  const stream = request.stream ? ctx.reply : null;
  const run = ctx.log.start('chat');
  noteQueue(ctx, 'chat', sequences);
  const route = chatRoute(request);
  const results = await sequences.use(ctx.signal, async (sequence) => {
    run.started();
    const done: Generated[] = [];
    for (let index = 0; index < sampling.n && !ctx.signal.aborted; index++) {
      // The role chunk goes out with the first piece of the answer, so a prompt that does not
      // fit is still a plain 400, not a stream that breaks off.
      let opened = false;
      const open = () => {
        if (!opened && stream) stream.send(chatChunk(meta, index, { role: 'assistant', content: null }));
        opened = true;
      };
      const target = { model: ctx.engine.model, sequence, contextSize: ctx.engine.contextSize };
      const result = await chatChoice(route, { target, wrapper, request, seed: choiceSeed(sampling.seed, index), signal: ctx.signal, onDelta: (delta) => {
        run.token();
        open();
        stream?.send(chatChunk(meta, index, chunkDelta(delta), null, delta.logprobs));
      } });
      done.push(result);
      if (result.aborted) break;
      open();
      stream?.send(chatChunk(meta, index, {}, result.finishReason));
    }
    return done;
  });
  run.end(results, ctx.signal.aborted);
  if (ctx.signal.aborted) return;
  const used = usageOf(results, sampling.n);
  if (!stream) return sendJson(ctx.reply.response, 200, chatCompletion(meta, choices(results), used));
  if (request.includeUsage) stream.send(chatUsageChunk(meta, used));
  stream.done();
}

export async function completions(ctx: RouteContext): Promise<void> {
  const { sequences } = chatEngine(ctx.engine);
  const request = readCompletionRequest(ctx.body);
  const { sampling } = request;
  const meta = answerMeta('cmpl', request.model ?? ctx.engine.modelName);
  const stream = request.stream ? ctx.reply : null;
  const run = ctx.log.start('completion');
  noteQueue(ctx, 'completion', sequences);
  const total = request.prompts.length * sampling.n;
  const promptOf = (index: number) => request.prompts[Math.floor(index / sampling.n)]!;
  const results = await sequences.use(ctx.signal, async (sequence) => {
    run.started();
    const done: Generated[] = [];
    for (let index = 0; index < total && !ctx.signal.aborted; index++) {
      const prompt = promptOf(index);
      const target = { model: ctx.engine.model, sequence, contextSize: ctx.engine.contextSize };
      const seed = choiceSeed(sampling.seed, index % sampling.n);
      // Legacy logprobs count offsets in prompt + completion.
      let offset = prompt.length;
      const result = request.logprobs === null
        ? await generateCompletion(target, prompt, sampling, seed, (text) => {
          run.token();
          stream?.send(textChunk(meta, index, text));
        }, ctx.signal)
        : await ownCompletion(target, prompt, sampling, seed, request.logprobs, (text, entries) => {
          run.token();
          stream?.send(textChunk(meta, index, text, null, undefined, { entries, offset }));
          offset += entries.reduce((sum, e) => sum + e.token.length, 0);
        }, ctx.signal);
      done.push(result);
      if (result.aborted) break;
      // llama-server puts usage on the very last chunk of a completion stream.
      stream?.send(textChunk(meta, index, '', result.finishReason, index === total - 1 ? usageOf([...done], sampling.n) : undefined));
    }
    return done;
  });
  run.end(results, ctx.signal.aborted);
  if (ctx.signal.aborted) return;
  if (!stream) return sendJson(ctx.reply.response, 200, textCompletion(meta, choices(results, (i) => promptOf(i).length), usageOf(results, sampling.n)));
  stream.done();
}
