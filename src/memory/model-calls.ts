// The memory's two model calls, made in process through the dispatcher's one entry (as the
// omni loop's embed_text is): no HTTP call to ourselves,
// so [memory.embedding].rerank_gateway_url is not used. Embedding failures are errors the
// caller sees; a rerank is a best effort that gives way to the fused order (rerank()).
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { V1Route } from '../dispatch/types.js';
import { readJson } from '../dispatch/result.js';
import { SvcError } from '../protocol/errors.js';

export type ModelDispatcher = Pick<Dispatcher, 'dispatch'>;

/** One JSON call; the status and the parsed answer (or the dispatcher's own error, thrown). `signal` aborts it. */
export async function callJson(dispatcher: ModelDispatcher, route: V1Route, model: string, path: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<{ status: number; answer: Record<string, unknown> }> {
  const result = await readJson(await dispatcher.dispatch({
    model, route, upstreamPath: path, contentType: 'application/json', stream: false, signal,
    body: (upstreamModel) => JSON.stringify({ ...payload, model: upstreamModel }),
  }));
  const answer = result.body;
  if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) return { status: result.status, answer: answer as Record<string, unknown> };
  return { status: result.status, answer: { error: { message: 'the answer is not a JSON object' } } };
}

/** The embedding of `text` by `model`; memory.embedding_failed when it cannot be had. */
export async function embed(dispatcher: ModelDispatcher, model: string, text: string): Promise<number[]> {
  let result: { status: number; answer: Record<string, unknown> };
  try {
    result = await callJson(dispatcher, 'embeddings', model, '/embeddings', { input: text });
  } catch (error) {
    const code = error instanceof SvcError ? error.code : undefined;
    throw new SvcError('memory.embedding_failed', `the embedding model "${model}" could not be called: ${(error as Error).message}`, { model, ...(code && { cause: code }) });
  }
  const vector = (result.answer.data as Array<{ embedding?: unknown }> | undefined)?.[0]?.embedding;
  if (result.status >= 400 || !Array.isArray(vector) || vector.length === 0 || !vector.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    const message = (result.answer.error as { message?: string } | undefined)?.message ?? 'no embedding in the answer';
    throw new SvcError('memory.embedding_failed', `the embedding model "${model}" answered ${result.status}: ${message}`, { model, status: result.status });
  }
  return vector as number[];
}

export interface RerankOptions {
  model: string;
  connectTimeoutS: number;
  readTimeoutS: number;
}

/** Why a rerank gave way to the fused order (reported in the recall's log line, never an error). */
export type RerankOutcome = { order: number[]; scores: ReadonlyMap<number, number> } | { fallback: 'timeout' | 'error'; reason: string };

/**
 * The documents' indices, best first, by the rerank model; or a fallback. The call is given
 * connect + read timeouts in all (in process there is no separate connect: the slot is
 * resolved, started if need be, and answers within that) and is aborted past it; it never
 * throws and never waits longer.
 */
export async function rerank(dispatcher: ModelDispatcher, options: RerankOptions, query: string, documents: readonly string[]): Promise<RerankOutcome> {
  const gone = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<RerankOutcome>((resolve) => {
    timer = setTimeout(() => {
      gone.abort(); // the dispatcher aborts its upstream request
      resolve({ fallback: 'timeout', reason: `no answer within ${options.connectTimeoutS + options.readTimeoutS} s` });
    }, (options.connectTimeoutS + options.readTimeoutS) * 1000);
    timer.unref();
  });
  const call = callJson(dispatcher, 'rerank', options.model, '/rerank', { query, documents, top_n: documents.length }, gone.signal).then(
    ({ status, answer }): RerankOutcome => {
      if (status >= 400) return { fallback: 'error', reason: `${status}: ${(answer.error as { message?: string } | undefined)?.message ?? 'error'}` };
      return orderOf(answer, documents.length);
    },
    (error: unknown): RerankOutcome => ({ fallback: 'error', reason: (error as Error).message }),
  );
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** `results:[{index,relevance_score}]` to the indices best first; any other shape is an error. */
function orderOf(answer: Record<string, unknown>, count: number): RerankOutcome {
  const results = answer.results;
  if (!Array.isArray(results)) return { fallback: 'error', reason: 'no results in the rerank answer' };
  const scored = results
    .map((r) => r as { index?: unknown; relevance_score?: unknown })
    .filter((r): r is { index: number; relevance_score: number } => Number.isInteger(r.index) && (r.index as number) >= 0 && (r.index as number) < count && typeof r.relevance_score === 'number');
  if (scored.length === 0) return { fallback: 'error', reason: 'the rerank answer ranked no document' };
  scored.sort((a, b) => b.relevance_score - a.relevance_score);
  const order = [...new Set(scored.map((r) => r.index))];
  // Documents the reranker left out keep their fused order, after the ranked ones.
  for (let i = 0; i < count; i++) if (!order.includes(i)) order.push(i);
  return { order, scores: new Map(scored.map((r) => [r.index, r.relevance_score])) };
}
