// The built-in engine's HTTP surface, llama-server's routes and answers: /health is 503
// "Loading model" (slot.not_ready) until the model is loaded and then 200 {"status":"ok"},
// so the gateway's one health probe serves both engines. Every route also answers without the /v1 prefix,
// as llama-server's do. Plain node:http: nothing between the socket and the model.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { LoadedEngine } from './engine.js';
import { BuiltinEngineError, clientGone, loading, notFound, readJsonObject, sendError, sendJson, serverError, SseWriter } from './http-io.js';
import type { RequestLog } from './request-log.js';
import { chatCompletions, completions, type RouteContext } from './text-routes.js';
import { embeddings, rerank } from './vector-routes.js';
import { own } from '../../lib/own.js';

const POST_ROUTES: Readonly<Record<string, (ctx: RouteContext) => Promise<void>>> = {
  '/chat/completions': chatCompletions,
  '/completions': completions,
  '/embeddings': embeddings,
  '/rerank': rerank,
  '/reranking': rerank,
  '/rerankings': rerank,
};

export interface EngineState {
  /** The loaded engine, or null while the model loads. */
  engine(): LoadedEngine | null;
  log: RequestLog;
}

function path(req: IncomingMessage): string {
  const pathname = new URL(req.url ?? '/', 'http://engine').pathname.replace(/\/+$/, '') || '/';
  return pathname.startsWith('/v1/') ? pathname.slice(3) : pathname;
}

function modelList(engine: LoadedEngine) {
  const { model } = engine;
  return {
    object: 'list',
    data: [{
      id: engine.modelName,
      object: 'model',
      created: Math.floor(Date.now() / 1000),
      owned_by: 'svc-builtin',
      meta: {
        n_ctx: engine.contextSize * engine.parallel, n_ctx_train: model.trainContextSize, n_embd: model.embeddingVectorSize,
        size: model.size, parallel: engine.parallel, mode: engine.mode, backend: engine.backend, runtime: engine.runtime,
      },
    }],
  };
}

async function handle(state: EngineState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const route = path(req);
  const engine = state.engine();
  if (req.method === 'GET' && route === '/health') return engine ? sendJson(res, 200, { status: 'ok' }) : sendError(res, loading());
  if (req.method === 'GET' && route === '/models') return engine ? sendJson(res, 200, modelList(engine)) : sendError(res, loading());
  const handler = req.method === 'POST' ? own(POST_ROUTES, route) : undefined;
  if (!handler) return sendError(res, notFound(req.method ?? 'GET', route));
  if (!engine) return sendError(res, loading());
  const signal = clientGone(res);
  const reply = new SseWriter(res);
  try {
    await handler({ engine, body: await readJsonObject(req), reply, signal, log: state.log });
  } catch (error) {
    if (signal.aborted) {
      state.log.line(`${route.slice(1)}: the client left before it was served`);
      return;
    }
    if (error instanceof BuiltinEngineError) return reply.fail(error);
    // node-llama-cpp's own errors (a failed decode, a disposed context): the message, not a crash.
    state.log.line(`${route.slice(1)}: failed: ${(error as Error).stack ?? String(error)}`);
    reply.fail(serverError((error as Error).message ?? String(error)));
  }
}

export function createEngineServer(state: EngineState): Server {
  const server = createServer((req, res) => {
    handle(state, req, res).catch((error: unknown) => {
      state.log.line(`request failed: ${(error as Error).stack ?? String(error)}`);
      if (!res.headersSent) sendError(res, serverError(String(error)));
      else res.destroy();
    });
  });
  // Generations can be long; the gateway bounds them itself.
  server.requestTimeout = 0;
  server.keepAliveTimeout = 60_000;
  return server;
}
