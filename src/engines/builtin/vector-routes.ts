// POST /v1/embeddings (--embedding) and /v1/rerank (--reranking), in llama-server's shapes:
// embeddings are L2-normalised as llama-server's OpenAI route returns them, and `base64`
// (what the official openai client asks for by default) is the float32 vector's bytes;
// rerank results follow the Jina convention, best first, cut to top_n.
import { BuiltinEngineError, invalidRequest, notSupported, sendJson } from './http-io.js';
import type { RouteContext } from './text-routes.js';

type Body = Record<string, unknown>;

export function readEmbeddingInputs(body: Body): string[] {
  const input = body.input ?? body.content;
  const list = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(list) || list.length === 0 || !list.every((item) => typeof item === 'string')) {
    throw invalidRequest("'input' must be a string or a non-empty list of strings");
  }
  const empty = list.findIndex((item) => item === '');
  if (empty >= 0) throw invalidRequest(`'input[${empty}]' is empty; an embedding needs at least one token`);
  return list;
}

export function readEncoding(body: Body): 'float' | 'base64' {
  const value = body.encoding_format ?? 'float';
  if (value !== 'float' && value !== 'base64') throw invalidRequest("'encoding_format' must be \"float\" or \"base64\"");
  return value;
}

export function normalised(vector: readonly number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : [...vector];
}

export function encodeVector(vector: readonly number[], encoding: 'float' | 'base64'): number[] | string {
  return encoding === 'float' ? [...vector] : Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

function tooLong(tokens: number, contextSize: number, what: string): BuiltinEngineError {
  return new BuiltinEngineError('request.context_exceeded', 'exceed_context_size_error', `${what} is ${tokens} tokens, more than the ${contextSize} the context holds; try increasing it`, { n_prompt_tokens: tokens, n_ctx: contextSize });
}

export async function embeddings(ctx: RouteContext): Promise<void> {
  const pool = ctx.engine.embedders;
  if (!pool) throw notSupported('This server does not support embeddings. Start it with `--embeddings`');
  const inputs = readEmbeddingInputs(ctx.body);
  const encoding = readEncoding(ctx.body);
  const started = performance.now();
  let tokens = 0;
  const data = await Promise.all(inputs.map((text, index) => pool.use(ctx.signal, async (embedder) => {
    const length = embedder.calculateInputLength(text);
    if (length >= ctx.engine.contextSize) throw tooLong(length, ctx.engine.contextSize, `input[${index}]`);
    tokens += length;
    const { vector } = await embedder.getEmbeddingFor(text);
    return { object: 'embedding', index, embedding: encodeVector(normalised(vector), encoding) };
  })));
  ctx.log.line(`embeddings: ${inputs.length} inputs, ${tokens} tokens in ${(performance.now() - started).toFixed(1)} ms`);
  sendJson(ctx.reply.response, 200, {
    model: typeof ctx.body.model === 'string' ? ctx.body.model : ctx.engine.modelName,
    object: 'list',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
    data,
  });
}

export interface RerankRequest {
  query: string;
  documents: string[];
  topN: number;
  returnDocuments: boolean;
}

export function readRerankRequest(body: Body): RerankRequest {
  if (typeof body.query !== 'string') throw invalidRequest(body.query === undefined ? '"query" must be provided' : '"query" must be a string');
  const raw = body.documents;
  // Jina lets a document be {text}; llama-server takes strings.
  const documents = Array.isArray(raw) ? raw.map((d: unknown) => (typeof d === 'object' && d !== null && typeof (d as Body).text === 'string' ? (d as Body).text : d)) : [];
  if (documents.length === 0 || !documents.every((d) => typeof d === 'string')) throw invalidRequest('"documents" must be a non-empty string array');
  const topN = body.top_n ?? documents.length;
  if (typeof topN !== 'number' || !Number.isInteger(topN) || topN < 1) throw invalidRequest('"top_n" must be a positive integer');
  return { query: body.query, documents: documents as string[], topN, returnDocuments: body.return_documents === true };
}

export async function rerank(ctx: RouteContext): Promise<void> {
  const pool = ctx.engine.rankers;
  if (!pool) throw notSupported('This server does not support reranking. Start it with `--reranking`');
  const request = readRerankRequest(ctx.body);
  const started = performance.now();
  let tokens = 0;
  const scored = await Promise.all(request.documents.map((document, index) => pool.use(ctx.signal, async (ranker) => {
    const length = ranker.calculateInputLength(request.query, document);
    if (length >= ranker.contextSize) throw tooLong(length, ranker.contextSize, `the query with documents[${index}]`);
    tokens += length;
    return { index, relevance_score: await ranker.rank(request.query, document), ...(request.returnDocuments && { document: { text: document } }) };
  })));
  const results = scored.sort((a, b) => b.relevance_score - a.relevance_score).slice(0, request.topN);
  ctx.log.line(`rerank: ${request.documents.length} documents, ${tokens} tokens in ${(performance.now() - started).toFixed(1)} ms`);
  sendJson(ctx.reply.response, 200, {
    model: typeof ctx.body.model === 'string' ? ctx.body.model : ctx.engine.modelName,
    object: 'list',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
    results,
  });
}
